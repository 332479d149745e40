/**
 * Results forged for pytest runs: the hidden tests dropped at collection and their PASSED lines
 * printed where a log-reading parser finds them. Each through a real episode, worth 0 and never
 * INFRA_ERROR.
 */
import { describe, it } from 'vitest';
import { CHEAT_TASK as TASK, describeControls, expectWorthlessEpisode, useCheatServers } from '../shared/episode-attack.js';
import { title } from '../shared/episode-suite.js';
import { FORGED_RESULTS_EPISODES } from './pytest-exploits.js';

const servers = useCheatServers({ install: false });
const exploit = (id: string) => FORGED_RESULTS_EPISODES.find((e) => e.id === id)!;
const run = (id: string) => () => expectWorthlessEpisode(servers.plain(), exploit(id), TASK);

describeControls(servers, { install: false });

describe("closed: listed tests missing from the run took the harness parser's reading of the whole log (verdict.ts harnessMap fallback)", () => {
  // Both earned 1 before the fix. The package drops the hidden tests at collection
  // (PyCollector._genfunctions: no audit event) and makes pytest exit 0, then prints "PASSED <id>"
  // lines after pytest's summary: every listed test was MISSING from the recorder and from the
  // summary-only parser, and decideVerdict() took harnessParse()'s line-based reading of the whole
  // log for each. Now a listed test of a file of this repository (stat'd by the engine in the
  // pristine container, or added by the test patch) takes its status from the run's own results
  // only: missing stays missing, whatever the log prints.
  it(title(exploit('Q1')), run('Q1'), 240_000);
  // Q2, a WRONG fix: only the PASS_TO_PASS test the fix breaks is dropped from collection and a
  // "PASSED" line printed for it at exit; the rest of the file, canaries included, runs normally.
  it(title(exploit('Q2')), run('Q2'), 240_000);
  // Q8: the forged lines inside pytest's own summary section, which swe-env's parser reads: the log
  // says PASSED, the recorder never saw the tests run, and the recorder decides.
  it(title(exploit('Q8')), run('Q8'), 240_000);
});
