import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests that launch Chromium, and tests that measure time (event-loop stalls): the latter run
// last and alone, so other files' load cannot fail them. Every other file under tests/ is an
// integration test.
const browserTests = ['tests/*browser*.test.ts'];
const timingTests = ['tests/*.timing.test.ts'];

export default defineConfig({
  // Tests import the SDK by its package name from its TypeScript source, so they need no prior build.
  resolve: { alias: { '@voicename/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests that drive a real browser or real child processes are heavy; two files at a time fit a 2-core machine.
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
    // Four projects, so a developer can run the fast part alone: `npm run test:unit` (pure code next to
    // the source: no database, no child processes, no browser), `test:integration` (the app on a real
    // database, ffmpeg, speech, the CLI; with the timing tests) and `test:browser` (Chromium).
    // `npm test` runs them all.
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'packages/*/src/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/**/*.test.ts'],
          exclude: [...browserTests, ...timingTests],
          setupFiles: ['tests/helpers/contract-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserTests,
          globalSetup: ['tests/helpers/browser-setup.ts'],
          setupFiles: ['tests/helpers/contract-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: timingTests,
          sequence: { groupOrder: 1 },
          fileParallelism: false,
          maxWorkers: 1,
          // Timing tests collect their own setup's garbage before they measure (globalThis.gc).
          execArgv: ['--expose-gc'],
        },
      },
    ],
  },
});
