import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests that drive a real browser or real child processes are heavy; two files at a time fit a 2-core machine.
    maxWorkers: 2,
    env: { NODE_ENV: 'test' },
  },
});
