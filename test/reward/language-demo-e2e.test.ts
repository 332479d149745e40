/**
 * Issue 20 end to end, real Docker and real gRPC: the demo tasks beyond Python
 * (tasks/demo-languages/: a Go module graded with `go test`, a Rust crate with cargo, a C++ library
 * with googletest, a PHP class with PHPUnit, a JavaScript module with node:test's TAP, a Ruby module
 * with RSpec's JSON turned into lines by jq and a Java class with Maven (one `mvn test -Dtest=X` per test), on images built offline from Debian's toolchain
 * packages) load as SWE-bench 5.x rows, plan with their own eval_script and log_parser, and are
 * graded through Evaluate: the gold patch scores 1 under both verdicts, the empty patch 0, with
 * canaries planted in the hidden test files of the go test and cargo runs. The images are the
 * demo's, built once (`swe-env images build-demo --languages`) and kept, like tasks/demo's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPrompt } from '../../src/tasks/prompt.js';
import type { Task } from '../../src/tasks/task.js';
import { startLanguageServer, stopLanguageServer } from '../helpers/language-demo.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let tasks: Task[] = [];

beforeAll(async () => {
  ({ server, tasks } = await startLanguageServer());
}, 900_000);

afterAll(() => stopLanguageServer(server));

// Canaries (least, most): synthetic ones and mirrors in the hidden test file where swe-env plants them (go test, cargo, googletest, node:test, PHPUnit, RSpec).
const CASES = [
  { id: 'swe-env-demo__semver-1', language: 'Go', parser: 'parse_log_gotest', f2p: 'TestCompareMultiDigitComponents', canaries: [10, 11] },
  {
    id: 'swe-env-demo__wordcount-1',
    language: 'Rust',
    parser: 'parse_log_cargo',
    f2p: 'repeated_spaces_do_not_make_words',
    canaries: [13, 14],
  },
  {
    id: 'swe-env-demo__strutil-1',
    language: 'C/C++',
    parser: 'parse_log_googletest',
    f2p: 'Trim.RemovesTabsAndNewlines',
    canaries: [10, 11],
  },
  {
    id: 'swe-env-demo__slugger-1',
    language: 'PHP',
    parser: 'parse_log_phpunit',
    f2p: 'None > Collapses runs of punctuation',
    canaries: [11, 11],
  },
  {
    id: 'swe-env-demo__rangejs-1',
    language: 'JavaScript/TypeScript',
    parser: 'parse_log_tap',
    f2p: '- counts down with a negative step',
    canaries: [11, 11],
  },
  {
    id: 'swe-env-demo__roman-1',
    language: 'Ruby',
    parser: 'parse_log_rspec_transformed_json',
    f2p: 'writes four and nine by subtraction',
    canaries: [9, 11],
  },
  {
    id: 'swe-env-demo__durations-1',
    language: 'Java',
    parser: 'parse_log_maven',
    f2p: 'demo.durations.DurationsTest#leavesOutZeroParts',
    canaries: [0, 0],
  },
] as const;

describe('the demo tasks beyond Python', () => {
  it("load as 5.x rows naming their runner's parser, and the prompt says the language", () => {
    expect(tasks.map((t) => t.id).sort()).toEqual(CASES.map((c) => c.id).sort());
    for (const c of CASES) {
      const task = tasks.find((t) => t.id === c.id)!;
      expect(task.logParser).toBe(c.parser);
      expect(task.failToPass).toContain(c.f2p);
      expect(renderPrompt(task)).toContain(`You are working in the ${c.language} repository`);
    }
  });

  for (const c of CASES) {
    it(`${c.id}: gold scores 1 under both verdicts, the empty patch 0`, async () => {
      const task = tasks.find((t) => t.id === c.id)!;
      const gold = (await server!.client.evaluate(task.id, task.goldPatch)).report!;
      expect(gold.plan).toMatchObject({ source: 'record-eval-script', harnessParser: c.parser, notes: [] });
      expect(gold.reward, `${gold.error}\n${gold.logTail}`).toBe(1);
      expect(gold.harness!.resolved).toBe(true);
      expect(gold.integrityFlags).toEqual([]);
      // Synthetic canaries and mirrors; how many mirrors depends on the PASS_TO_PASS test drawn.
      expect(gold.canaries).toBeGreaterThanOrEqual(c.canaries[0]);
      expect(gold.canaries).toBeLessThanOrEqual(c.canaries[1]);
      expect(gold.failToPass.map((r) => r.status)).toEqual(task.failToPass.map(() => 'TEST_STATUS_PASSED'));
      expect(gold.passToPass.map((r) => r.status)).toEqual(task.passToPass.map(() => 'TEST_STATUS_PASSED'));

      const empty = (await server!.client.evaluate(task.id, '')).report!;
      expect(empty.infraError).toBe(false);
      expect(empty.reward).toBe(0);
      expect(empty.harness!.resolved).toBe(false);
      expect(empty.failToPass.find((r) => r.name === c.f2p)!.status).toBe('TEST_STATUS_FAILED');
      expect(empty.passToPass.map((r) => r.status)).toEqual(task.passToPass.map(() => 'TEST_STATUS_PASSED'));
    }, 600_000);
  }
});
