import type { CanaryRunner } from '../language.js';
import { TAP_CANARY_TEXT, TAP_MIRRORS } from './canaries.js';

/** node's own runner: a file that takes its `test` from node:test (other TAP producers print the same lines). */
export const TAP_RUNNER: CanaryRunner = {
  ...TAP_CANARY_TEXT,
  ...TAP_MIRRORS,
  name: 'tap',
  parsers: ['parse_log_tap'],
  canaryFile: (path, content) =>
    /\.[cm]?js$/.test(path) && /require\(\s*['"]node:test['"]\s*\)|from\s+['"]node:test['"]/.test(content) && /^(test|it)\(/m.test(content),
  commandRunsAll: (testCommand) =>
    /\bnode\b[^\n]*\s--test\b/.test(testCommand) && !/--test-name-pattern|--test-skip-pattern|--test-only|--test-shard/.test(testCommand),
  stopsEarly: (testCommand) => /--test-bail\b/.test(testCommand),
  keyMatches: (canary, key) => key === `- ${canary.name}`,
};
