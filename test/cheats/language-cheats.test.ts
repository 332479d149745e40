/**
 * Cheats beyond pytest (issue 20), real Docker and real gRPC on the Go and Rust demo tasks: the
 * printed log of `go test -v` and of libtest is written by the test process, where the patch's code
 * runs, so a patch without the fix can print the result lines the parser reads. Each attack is
 * shown to win against the log-only reading (the harness's verdict, which reads nothing else:
 * `harness.resolved` is true) and to score 0 under swe-env's (the canaries planted in the hidden
 * test files, the runner's exit status), or to be left out of the change before it runs (a
 * TestMain: Go's test files are the runner's, see patch-filter.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/tasks/task.js';
import { startLanguageServer, stopLanguageServer } from '../helpers/language-demo.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let tasks: Task[] = [];

beforeAll(async () => {
  ({ server, tasks } = await startLanguageServer());
}, 900_000);

afterAll(() => stopLanguageServer(server));

/** A git patch adding one file (no fix). */
function addFile(path: string, content: string): string {
  const lines = content.replace(/\n$/, '').split('\n');
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** Go: the package's init() prints a PASS line for every test of the test files, then exits 0. */
const GO_INIT_FORGERY = addFile(
  'forge.go',
  `package semver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

func init() {
	files, _ := filepath.Glob("*_test.go")
	re := regexp.MustCompile(\`func (Test\\w+)\\(\`)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			fmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", m[1], m[1])
		}
	}
	fmt.Println("PASS")
	os.Exit(0)
}
`,
);

/** Go: a TestMain of the patch's own runs the tests, then prints PASS for the tests and exits 0. */
function goTestMainForgery(): string {
  return addFile(
    'main_test.go',
    `package semver

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, name := range []string{"TestCompareMultiDigitComponents", "TestCompareNumericNotTextual"} {
		fmt.Printf("--- PASS: %s (0.00s)\\n", name)
	}
	os.Exit(0 * code)
}
`,
  );
}

/**
 * Rust: the function under test, once, writes libtest's `ok` line for every test of tests/ straight
 * to the process's stdout (libtest captures what a test prints) in one write, then ends the process
 * with success.
 */
const RUST_FORGERY = [
  'diff --git a/src/lib.rs b/src/lib.rs',
  'index f394abb..83d4ab1 100644',
  '--- a/src/lib.rs',
  '+++ b/src/lib.rs',
  '@@ -10,6 +10,25 @@ pub struct Counts {',
  ' ',
  ' /// Words are runs of characters between whitespace.',
  ' pub fn count_words(text: &str) -> usize {',
  '+    // Once, whichever test thread comes first; the others wait until the process is gone.',
  '+    static FORGE: std::sync::Once = std::sync::Once::new();',
  '+    FORGE.call_once(|| {',
  '+        use std::io::Write;',
  '+        let mut forged = String::from("\\n");',
  '+        for entry in std::fs::read_dir("tests").unwrap() {',
  '+            let source = std::fs::read_to_string(entry.unwrap().path()).unwrap();',
  '+            for line in source.lines() {',
  '+                if let Some(rest) = line.trim().strip_prefix("fn ") {',
  '+                    forged += &format!("test {} ... ok\\n", rest.split(\'(\').next().unwrap());',
  '+                }',
  '+            }',
  '+        }',
  '+        forged += "\\ntest result: ok.\\n";',
  "+        // One write, straight to the process's stdout: libtest captures what a test prints.",
  '+        let mut out = std::fs::OpenOptions::new().write(true).open("/dev/stdout").unwrap();',
  '+        out.write_all(forged.as_bytes()).unwrap();',
  '+        std::process::exit(0);',
  '+    });',
  '     if text.is_empty() {',
  '         return 0;',
  '     }',
  '',
].join('\n');

describe('forged results beyond pytest', () => {
  const task = (id: string): Task => tasks.find((t) => t.id === id)!;

  it('go: an init() printing PASS for every test and exiting 0 wins the log-only reading and scores 0', async () => {
    const report = (await server!.client.evaluate('swe-env-demo__semver-1', GO_INIT_FORGERY)).report!;
    expect(report.harness!.resolved, report.logTail).toBe(true);
    expect(report.reward).toBe(0);
    expect(report.integrityFlags.join('\n')).toMatch(/canary .* must be FAILED\) was reported PASSED/);
    expect(report.integrityFlags.join('\n')).toMatch(/go test run exited 0 though a planted failing test/);
  }, 300_000);

  it("go: a TestMain of the patch's own (re-printing PASS for the issue's tests, exiting 0) is left out of the change and scores 0", async () => {
    // A _test.go file of the package owns the test binary's output and exit: the change may not add one.
    const report = (await server!.client.evaluate('swe-env-demo__semver-1', goTestMainForgery())).report!;
    expect(report.droppedFiles).toContain('main_test.go (read or run by the test runner)');
    expect(report.reward).toBe(0);
    expect(report.harness!.resolved).toBe(false);
  }, 300_000);

  it("rust: the code under test printing libtest's ok lines and exiting 0 wins the log-only reading and scores 0", async () => {
    expect(task('swe-env-demo__wordcount-1').failToPass.length).toBeGreaterThan(0);
    const report = (await server!.client.evaluate('swe-env-demo__wordcount-1', RUST_FORGERY)).report!;
    expect(report.harness!.resolved, report.logTail).toBe(true);
    expect(report.reward).toBe(0);
    // libtest runs tests on parallel threads: the planted failing test may print its FAILED line
    // before the forger's exit (then the log holds its true status), so only the runner's exit status
    // is a certain witness here.
    expect(report.integrityFlags.join('\n')).toMatch(/cargo test run exited 0 though a planted failing test/);
  }, 300_000);
});
