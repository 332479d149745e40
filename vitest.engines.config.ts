import { defineConfig } from 'vitest/config';

/** Tests of one engine's specifics, run by scripts/test-all.sh's engine legs with the engines' sockets. */
export default defineConfig({
  test: {
    include: ['test/engines/**/*.engine-test.ts'],
    globalSetup: ['test/global-teardown.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
