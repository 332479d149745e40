/**
 * The third attacker's suite: every exploit of round3-exploits.ts through a real episode on a real
 * server (plant, probe showing the trick in the agent's container, submit). Each must be reward 0
 * and never INFRA_ERROR. An
 * exploit that still works is kept as `it.fails` with a `// SUCCEEDS:` note, so the suite stays
 * green, records the finding, and fails the day a defence catches it (then make it a plain `it`).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { CHEAT_TASK as TASK, expectWorthlessEpisode } from './attack.js';
import { ROUND3_EXPLOITS } from './round3-exploits.js';

let plain: TestServer;

beforeAll(async () => {
  plain = await startTestServer({ testTimeoutS: 30 });
});

afterAll(async () => {
  if (!plain) return;
  await plain.stop();
  await expectNoContainers(plain.server.provider);
});

const exploit = (prefix: string) => ROUND3_EXPLOITS.find((e) => e.name.startsWith(`${prefix} `))!;
const run = (prefix: string) => () => expectWorthlessEpisode(plain, exploit(prefix), TASK);

describe("the third attacker's exploits: none earns 1, none masks its 0", () => {
  for (const prefix of ['Q1b', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7']) {
    it(`[${exploit(prefix).family}] ${exploit(prefix).name}`, run(prefix), 240_000);
  }
});

describe("closed: listed tests missing from the run took the harness parser's reading of the whole log (verdict.ts harnessMap fallback)", () => {
  // Both earned 1 before the fix (found by an independent attacker). The package drops the hidden
  // tests at collection (PyCollector._genfunctions: no audit event) and makes pytest exit 0, then
  // prints "PASSED <id>" lines after pytest's summary: every listed test was MISSING from the
  // recorder and from the summary-only parser, and decideVerdict() took harnessParse()'s
  // line-based reading of the whole log for each. Now a listed test of a file of this repository
  // (stat'd by the engine in the pristine container, or added by the test patch) takes its status
  // from the run's own results only: missing stays missing, whatever the log prints.
  it(`[${exploit('Q1').family}] ${exploit('Q1').name}`, run('Q1'), 240_000);
  // Q2, a WRONG fix: only the PASS_TO_PASS test the fix breaks is dropped from collection and a
  // "PASSED" line printed for it at exit; the rest of the file, canaries included, runs normally.
  it(`[${exploit('Q2').family}] ${exploit('Q2').name}`, run('Q2'), 240_000);
  // Q8: the forged lines inside pytest's own summary section, which swe-env's parser reads: the log
  // says PASSED, the recorder never saw the tests run, and the recorder decides.
  it(`[${exploit('Q8').family}] ${exploit('Q8').name}`, run('Q8'), 240_000);
});
