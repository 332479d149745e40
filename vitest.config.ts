import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/duration-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-teardown.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Docker serialises container starts; a few files at once is what the 2-core machine takes.
    maxWorkers: 2,
    reporters: ['default'],
    // Longest files first (test/durations.json): no worker is left alone with a long file at the end.
    sequence: { sequencer: DurationSequencer },
  },
});
