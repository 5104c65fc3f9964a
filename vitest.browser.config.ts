import { defineConfig } from 'vitest/config';

/** The console's tests in Chromium (`npm run test:browser`): one file at a time, each with its own server. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/browser/support/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
