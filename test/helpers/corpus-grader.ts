import { createLogger } from '../../src/common/logger.js';
import { Semaphore } from '../../src/common/semaphore.js';
import { Grader } from '../../src/reward/grader.js';
import type { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { compileConfig } from '../../src/server/config.js';

/** A grader for the corpus's real rows as `swe-env validate` grades them: the defaults, one grading at a time, a 600 s test timeout. */
export function corpusGrader(provider: DockerSandboxProvider): Grader {
  const config = compileConfig({ testTimeoutS: 600 });
  return new Grader(
    provider,
    new Semaphore(1),
    {
      limits: config.limits,
      testTimeoutS: 600,
      logLimitBytes: 8 * 1024 * 1024,
      maxGradings: 1,
      installRerun: config.installRerun,
      rewardRule: config.rewardRule,
      harnessGeneration: config.harnessGeneration,
      gradingNetwork: config.gradingNetwork,
    },
    createLogger('warn'),
  );
}
