import type { CanaryRunner } from '../language.js';

/** `go test`: canaries are `func TestX(t *testing.T)` in a `_test.go` file importing testing. */
export const GO_RUNNER: CanaryRunner = {
  name: 'go',
  parsers: ['parse_log_gotest', 'swesmith_go'],
  canaryFile: (path, content) => path.endsWith('_test.go') && /^import\s*(\(\s*[^)]*"testing"[^)]*\)|"testing")/m.test(content) && /\*testing\.T\b/.test(content),
  // `go test -run` filters by name; otherwise the file's package must be among those the command runs.
  commandRunsAll(testCommand, path) {
    if (/\s-(test\.)?run[=\s]/.test(testCommand)) return false;
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.';
    return testCommand.includes('./...') || new RegExp(`(^|\\s)\\./${dir === '.' ? '' : dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?(\\s|$)`).test(testCommand);
  },
  stopsEarly: (testCommand) => /\s-failfast\b/.test(testCommand),
};
