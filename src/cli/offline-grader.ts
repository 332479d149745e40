import { createLogger } from '../common/logger.js';
import { Semaphore } from '../common/semaphore.js';
import type { InstallRerun } from '../reward/eval-plan/install-policy.js';
import { Grader } from '../reward/grader.js';
import type { GradingNetwork } from '../reward/grading/grader-options.js';
import type { RewardRule } from '../reward/report.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { compileConfig } from '../server/config.js';

/**
 * A grader for a one-shot command: its containers carry this process as their owner, so once it
 * is gone (even killed) the next CLI run or any server's sweep removes them.
 */
export function offlineGrader(
  concurrency: number,
  testTimeoutS: number,
  rules: { rewardRule?: RewardRule; installRerun?: InstallRerun; gradingNetwork?: GradingNetwork } = {},
): { grader: Grader; provider: DockerSandboxProvider } {
  const logger = createLogger('warn');
  const provider = new DockerSandboxProvider(`offline-${process.pid}`, { ownedByThisProcess: true });
  // compileConfig checks the rule names as the server does.
  const config = compileConfig({ testTimeoutS, ...rules });
  const grader = new Grader(
    provider,
    new Semaphore(Math.max(1, concurrency)),
    {
      limits: config.limits,
      testTimeoutS,
      logLimitBytes: 8 * 1024 * 1024,
      maxGradings: Math.max(1, concurrency),
      installRerun: config.installRerun,
      rewardRule: config.rewardRule,
      harnessGeneration: config.harnessGeneration,
      gradingNetwork: config.gradingNetwork,
    },
    logger,
  );
  return { grader, provider };
}
