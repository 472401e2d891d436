import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { defineWxtModule } from 'wxt/modules';

/** Toolbar sizes Firefox picks from for `action.theme_icons` (16 px, and 32 px on high-density screens). */
const SIZES = [16, 32];
/** Glyph colours: dark on light toolbars, light on dark ones (Firefox's own toolbar icon colours). */
const ON_LIGHT = '#1d1d1f';
const ON_DARK = '#fbfbfe';

/**
 * Firefox swaps an add-on's toolbar icon with the browser theme (`action.theme_icons`); Chrome has no such key and
 * shows the coloured icon that @wxt-dev/auto-icons makes from assets/icon.svg. The one-colour glyph comes from
 * assets/toolbar-icon.svg, rendered here in both colours at build time.
 */
export default defineWxtModule({
  name: 'backstory:toolbar-icons',
  setup(wxt) {
    // @wxt-dev/auto-icons writes its icons at build:done without awaiting the mkdir of their folder, so on a busy
    // machine the first icon's write can fail ("icons/128.png: unable to open for write"): the folder is made first.
    wxt.hooks.hook('build:manifestGenerated', async () => {
      await mkdir(resolve(wxt.config.outDir, 'icons'), { recursive: true });
    });
    if (wxt.config.browser !== 'firefox') return;
    const source = resolve(wxt.config.root, 'assets', 'toolbar-icon.svg');
    const file = (tone: 'light' | 'dark', size: number) => `icons/toolbar-${tone}-${size}.png`;
    wxt.hooks.hook('build:manifestGenerated', (_wxt, manifest) => {
      const action = (manifest.action ??= {}) as Record<string, unknown>;
      // "light" is the light glyph, shown on dark themes; "dark" the dark glyph, shown on light themes.
      action.theme_icons = SIZES.map((size) => ({ light: file('light', size), dark: file('dark', size), size }));
    });
    wxt.hooks.hook('build:done', async (_wxt, output) => {
      const svg = await readFile(source, 'utf8');
      await mkdir(resolve(wxt.config.outDir, 'icons'), { recursive: true });
      for (const size of SIZES) {
        for (const [tone, colour] of [['light', ON_DARK], ['dark', ON_LIGHT]] as const) {
          // Rendered at 4x the viewBox and scaled down, so edges are smooth at 16 px.
          await sharp(Buffer.from(svg.replaceAll('currentColor', colour)), { density: 72 * 4 })
            .resize(size)
            .png()
            .toFile(resolve(wxt.config.outDir, file(tone, size)));
          output.publicAssets.push({ type: 'asset', fileName: file(tone, size) });
        }
      }
    });
  },
});
