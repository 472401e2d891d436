import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'lib/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/firefox*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // One Chromium at a time: the machine has two cores.
          fileParallelism: false,
          // The worker may be busy embedding (model load, a background import) when a test asks: allow for it.
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        test: {
          // The Firefox build (npm run build:firefox) in headless Firefox ESR; runs after the Chromium suite.
          name: 'e2e-firefox',
          include: ['test/e2e/firefox*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
