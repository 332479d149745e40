/**
 * Cheats beyond pytest (issue 20), real Docker and real gRPC on the Go and Rust demo tasks: the
 * printed log of `go test -v` and of libtest is written by the test process, where the patch's code
 * runs, so a patch without the fix can print the result lines the parser reads. Each attack is
 * shown to win against the log-only reading (the harness's verdict, which reads nothing else:
 * `harness.resolved` is true) and to score 0 under swe-env's (the canaries planted in the hidden
 * test files, the runner's exit status, a listed test reported both ways).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { buildLanguageDemoImages, LANGUAGE_TASKS } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let tasks: Task[] = [];

beforeAll(async () => {
  await buildLanguageDemoImages();
  tasks = (await loadTaskFile(LANGUAGE_TASKS)).tasks;
  // Graded with no network at all: what is under test is the runners' grading; the 'offline'
  // route the default adds is test/reward/grading-network.test.ts's.
  server = await startTestServer({ taskFiles: [LANGUAGE_TASKS], gradingNetwork: 'none' });
}, 900_000);

afterAll(async () => {
  if (!server) return;
  await server.stop();
  await expectNoContainers(server.server.provider);
});

/** A git patch adding one file (no fix). */
function addFile(path: string, content: string): string {
  const lines = content.replace(/\n$/, '').split('\n');
  return [`diff --git a/${path} b/${path}`, 'new file mode 100644', '--- /dev/null', `+++ b/${path}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ''].join('\n');
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

/** Go: a TestMain of the patch's own runs the tests, then prints PASS for the tests, and keeps (or hides) the exit status. */
function goTestMainForgery(exit: 'code' | 'zero'): string {
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
	os.Exit(${exit === 'code' ? 'code' : '0 * code'})
}
`,
  );
}

/**
 * Rust: the function under test writes libtest's `ok` line for every test of tests/ straight to the
 * process's stdout (libtest captures what a test prints), then ends the process with success.
 */
const RUST_FORGERY = [
  'diff --git a/src/lib.rs b/src/lib.rs',
  'index f394abb..1ffe281 100644',
  '--- a/src/lib.rs',
  '+++ b/src/lib.rs',
  '@@ -10,6 +10,20 @@ pub struct Counts {',
  ' ',
  ' /// Words are runs of characters between whitespace.',
  ' pub fn count_words(text: &str) -> usize {',
  '+    use std::io::Write;',
  '+    // Straight to the process\'s stdout: libtest captures what a test prints.',
  '+    let mut out = std::fs::OpenOptions::new().write(true).open("/dev/stdout").unwrap();',
  '+    writeln!(out).unwrap();',
  '+    for entry in std::fs::read_dir("tests").unwrap() {',
  '+        let source = std::fs::read_to_string(entry.unwrap().path()).unwrap();',
  '+        for line in source.lines() {',
  '+            if let Some(rest) = line.trim().strip_prefix("fn ") {',
  '+                writeln!(out, "test {} ... ok", rest.split(\'(\').next().unwrap()).unwrap();',
  '+            }',
  '+        }',
  '+    }',
  '+    writeln!(out, "\\ntest result: ok.").unwrap();',
  '+    std::process::exit(0);',
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

  it('go: a TestMain re-printing PASS for the issue\'s tests wins the log-only reading and scores 0, whatever its exit status', async () => {
    for (const exit of ['zero', 'code'] as const) {
      const report = (await server!.client.evaluate('swe-env-demo__semver-1', goTestMainForgery(exit))).report!;
      expect(report.harness!.resolved, `${exit}: ${report.logTail}`).toBe(true);
      expect(report.reward, exit).toBe(0);
      expect(report.integrityFlags.join('\n')).toMatch(/TestCompareMultiDigitComponents is reported both passing and failing/);
      if (exit === 'zero') expect(report.integrityFlags.join('\n')).toMatch(/exited 0 though a planted failing test/);
    }
  }, 600_000);

  it('rust: the code under test printing libtest\'s ok lines and exiting 0 wins the log-only reading and scores 0', async () => {
    expect(task('swe-env-demo__wordcount-1').failToPass.length).toBeGreaterThan(0);
    const report = (await server!.client.evaluate('swe-env-demo__wordcount-1', RUST_FORGERY)).report!;
    expect(report.harness!.resolved, report.logTail).toBe(true);
    expect(report.reward).toBe(0);
    expect(report.integrityFlags.join('\n')).toMatch(/canary .* must be FAILED\) was reported PASSED/);
  }, 300_000);
});
