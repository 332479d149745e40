import type { CanaryRunner } from '../language.js';
import { CARGO_CANARY_TEXT } from './canaries.js';
import { CARGO_MIRRORS } from './mirrors.js';

/** cargo's libtest: canaries are `#[test]` functions of an integration test file (tests/*.rs). */
export const CARGO_RUNNER: CanaryRunner = {
  ...CARGO_CANARY_TEXT,
  ...CARGO_MIRRORS,
  name: 'cargo',
  parsers: ['parse_log_cargo', 'swesmith_cargo'],
  canaryFile: (path, content) => /^tests\/[^/]+\.rs$/.test(path) && /#\[test\]/.test(content),
  // cargo's positional filter or `--test` target would leave a canary out.
  commandRunsAll(testCommand) {
    const args = /cargo\s+test(.*)$/m.exec(testCommand)?.[1] ?? '';
    const beforeDashes = args.split(/\s--(\s|$)/)[0] ?? '';
    const positional = beforeDashes
      .split(/\s+/)
      .filter(
        (a, i, all) =>
          a !== '' && !a.startsWith('-') && !/^--(features|package|manifest-path|target|jobs|test|bin|example)$/.test(all[i - 1] ?? ''),
      );
    return positional.length === 0 && !/\s--test[=\s]/.test(beforeDashes);
  },
  // cargo stops after a failing test target unless told not to.
  stopsEarly: (testCommand) => !/--no-fail-fast\b/.test(testCommand),
  // libtest names a test by its module path (`tests::name`) where it has one.
  keyMatches: (canary, key) => key === canary.name || key.endsWith(`::${canary.name}`),
  exitStatusOf: 'cargo test',
};
