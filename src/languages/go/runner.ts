import type { CanaryRunner } from '../language.js';
import { GO_CANARY_TEXT } from './canaries.js';
import { GO_MIRRORS } from './mirrors.js';

/** `go test`: canaries are `func TestX(t *testing.T)` in a `_test.go` file importing testing. */
export const GO_RUNNER: CanaryRunner = {
  ...GO_CANARY_TEXT,
  ...GO_MIRRORS,
  name: 'go',
  parsers: ['parse_log_gotest', 'swesmith_go'],
  canaryFile: (path, content) =>
    path.endsWith('_test.go') && /^import\s*(\(\s*[^)]*"testing"[^)]*\)|"testing")/m.test(content) && /\*testing\.T\b/.test(content),
  // `go test -run` filters by name; otherwise the file's package must be among those the command runs.
  commandRunsAll(testCommand, path) {
    if (/\s-(test\.)?run[=\s]/.test(testCommand)) return false;
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.';
    return (
      testCommand.includes('./...') ||
      new RegExp(`(^|\\s)\\./${dir === '.' ? '' : dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?(\\s|$)`).test(testCommand)
    );
  },
  stopsEarly: (testCommand) => /\s-failfast\b/.test(testCommand),
  // A subtest's result is the canary's too (`TestX/case`).
  keyMatches: (canary, key) => key === canary.name || key.startsWith(`${canary.name}/`),
  exitStatusOf: 'go test',
  // Go's package is its folder: a canary named like a function of another file of it would not compile.
  reservedNamesScript: `cd -- "$1" || exit 1
shift
for dir in "$@"; do cat -- "$dir"/*.go 2>/dev/null; done | grep -o '^func [A-Za-z_][A-Za-z0-9_]*' | cut -c6- | sort -u
exit 0`,
};
