import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The README's pictures, as a fresh clone shows them: present, small, and rewritten by test/e2e/screenshots.test.ts. */
const ROOT = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pictures = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
const writer = readFileSync(join(ROOT, 'test', 'e2e', 'screenshots.test.ts'), 'utf8');

describe('README pictures', () => {
  it('links only pictures that are in the repository, under 250 KB each', () => {
    expect(pictures.length).toBeGreaterThan(0);
    for (const p of pictures) {
      expect(p, 'a picture in the repository, not on the web').not.toMatch(/^[a-z]+:/);
      expect(existsSync(join(ROOT, p)), p).toBe(true);
      expect(statSync(join(ROOT, p)).size, p).toBeLessThan(250_000);
    }
  });

  it('links only pictures that npm test writes, so they stay current', () => {
    for (const p of pictures) {
      expect(p).toMatch(/^docs\/screenshots\/[\w-]+\.png$/);
      expect(writer, `screenshots.test.ts writes ${p}`).toContain(`'${p.split('/').pop()}'`);
    }
  });
});
