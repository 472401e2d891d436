import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { builtZipMegabytes, PROJECT_ROOT, ZIP_DIR } from '../../bench/lib/perf/build-parts';

describe('bench:perf reads what an install downloads from the built store zips', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'backstory-zips-'));
    dirs.push(d);
    return d;
  };
  // Random bytes do not compress: the zip is a little over their size.
  const zipOf = (bytes: number) => zipSync({ 'model.bin': Uint8Array.from({ length: bytes }, (_, i) => (i * 2654435761) >>> 24) }, { level: 0 });

  it('gives the newest Chrome and Firefox zip in megabytes, null for one not built', () => {
    const d = dir();
    writeFileSync(join(d, 'backstory-0.1.0-chrome.zip'), zipOf(1_500_000));
    writeFileSync(join(d, 'backstory-0.0.9-chrome.zip'), zipOf(3_000_000));
    utimesSync(join(d, 'backstory-0.0.9-chrome.zip'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    writeFileSync(join(d, 'backstory-0.1.0-sources.zip'), zipOf(10_000));
    expect(builtZipMegabytes(d)).toEqual({ chrome: 1.5, firefox: null });
  });

  it('refuses a file named like a zip that is not one', () => {
    const d = dir();
    writeFileSync(join(d, 'backstory-0.1.0-firefox.zip'), 'not a zip');
    expect(() => builtZipMegabytes(d)).toThrow(/not a zip/);
  });
});

describe('bench:perf builds and reads the extension where the project is', () => {
  it('runs wxt build in the folder holding the project\'s package.json, and reads zips from its .output', () => {
    // bench/lib/perf took bench/ for the root: its wxt build failed and every browser figure went unmeasured.
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).name).toBe('backstory');
    expect(ZIP_DIR).toBe(join(PROJECT_ROOT, '.output'));
  });
});
