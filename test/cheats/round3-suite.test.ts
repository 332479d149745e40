/**
 * The third attacker's suite: every exploit of round3-exploits.ts through a real episode on a real
 * server (plant, probe showing the trick in the agent's container, submit), then through Evaluate
 * with the change the episode's capture took. Each must be reward 0 and never INFRA_ERROR. An
 * exploit that still works is kept as `it.fails` with a `// SUCCEEDS:` note, so the suite stays
 * green, records the finding, and fails the day a defence catches it (then make it a plain `it`).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { CHEAT_TASK as TASK, expectWorthlessBothWays } from './attack.js';
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
const run = (prefix: string) => () => expectWorthlessBothWays(plain, exploit(prefix), TASK);

describe("the third attacker's exploits: none earns 1, none masks its 0", () => {
  for (const prefix of ['Q1b', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7']) {
    it(`[${exploit(prefix).family}] ${exploit(prefix).name}`, run(prefix), 240_000);
  }
});

describe('open: listed tests missing from the run take the harness parser\'s reading of the whole log (verdict.ts harnessMap fallback)', () => {
  // SUCCEEDS: reward 1 with NO fix. The package drops every item of the hidden test file at
  // collection (PyCollector._genfunctions: no audit event, not in the recorder's watched list) and
  // makes Session.testscollected read 1 so pytest exits 0; at exit it prints "PASSED <id>" lines
  // after pytest's summary. Every listed test is MISSING from the recorder and from swe-env's
  // summary-only parser, so decideVerdict() takes harnessParse()'s line-based reading of the whole
  // log for each (harness_read lists all six); the canaries are silent because their file "never
  // ran"; exit 0 leaves nothing to reject; recorder and log verdicts agree (both fell back).
  it.fails(`[${exploit('Q1').family}] ${exploit('Q1').name}`, run('Q1'), 240_000);
  // SUCCEEDS: reward 1 with a WRONG fix. Only the PASS_TO_PASS test the fix breaks is dropped
  // from collection and a "PASSED" line for it printed at exit; the rest of the file, canaries
  // included, runs normally (the mirror canaries of the dropped test are skipped because the test
  // did not pass "in the same run"), the must-fail canaries explain the non-zero exit.
  it.fails(`[${exploit('Q2').family}] ${exploit('Q2').name}`, run('Q2'), 240_000);
});
