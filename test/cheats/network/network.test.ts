/**
 * The offline grading network: the code under test reaches nothing from the grading container,
 * and a change that needs a download is the model's 0, not INFRA_ERROR. Graded once each through a
 * real server's Evaluate on the Go demo task.
 */
import { describe, expect, it } from 'vitest';
import { exploitGrading, itScoresNothingUnchanged, said } from '../../helpers/exploit-grading.js';
import { EMPTY_GO } from '../shared/language-plants.js';
import { D1_NEEDS_DOWNLOAD, n1NetworkProbe } from './exploits.js';

const { grade, expectWorthless, server: suiteServer } = exploitGrading();

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO]);
});

describe('go test: the offline grading network', () => {
  it('N1: the code under test reaches nothing from the offline grading container (no host, no Docker API, no server, no outside)', async () => {
    const exploit = n1NetworkProbe(Number(/:(\d+)$/.exec(suiteServer().server.address)![1]));
    const report = await grade(exploit);
    expect(report.gradingNetwork, said(report)).toMatch(/^offline/);
    expect(report.logTail, said(report)).toMatch(/PROBE refused 172\.17\.0\.1:2375/);
    expect(report.logTail, said(report)).not.toMatch(/PROBE REACHED/);
    await expectWorthless(exploit);
  }, 120_000);

  it("D1: a dependency the offline container cannot download is the model's 0, not INFRA_ERROR", async () => {
    const report = await grade(D1_NEEDS_DOWNLOAD);
    expect(report.logTail, said(report)).toMatch(/proxy\.golang\.org|go-cmp/);
    await expectWorthless(D1_NEEDS_DOWNLOAD);
  }, 120_000);
});
