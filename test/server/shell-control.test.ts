/**
 * A shell the episode cannot start again, attributed by control. The agent's own files can keep a
 * new shell from starting (here a conda `activate` script that exits, which the agent shell sources
 * at every start): before, the step after the shell exited answered INFRA_ERROR, a masked sample on
 * demand. Now the same start is tried in a fresh container from the task's pristine image: it works
 * there, so the episode ends as the model's failure (reward 0, end reason sandbox_shell_broken). An
 * image whose shell never starts fails the control too: the environment's fault.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { pino } from 'pino';
import { Semaphore } from '../../src/common/semaphore.js';
import { Grader } from '../../src/reward/grader.js';
import { shellStartsOnPristineCopy } from '../../src/server/shell-control.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

const TASK = 'swe-env-demo__textkit-1';
const BREAK_ACTIVATE = "mkdir -p /opt/miniconda3/bin && printf 'exit 3\\n' > /opt/miniconda3/bin/activate";
let t: TestServer;
const images: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  for (const image of images)
    await t.server.provider.docker
      .getImage(image)
      .remove({ force: true })
      .catch(() => undefined);
  await expectNoContainers(t.server.provider);
});

describe('a shell the sandbox cannot start again', () => {
  it("broken by the episode's own files: reward 0 and the model's end reason, not INFRA_ERROR", async () => {
    const reset = await t.client.reset({ taskId: TASK });
    const id = reset.episodeId;
    try {
      const broken = await t.client.bash(id, 0, BREAK_ACTIVATE);
      expect(broken.exitCode, broken.observation).toBe(0);
      // The trick: the shell exits, and no new one can start in this container.
      const step = await t.client.bash(id, 1, 'exit 0');
      expect(step.status, step.observation).not.toBe('STEP_STATUS_INFRA_ERROR');
      expect(step.terminated).toBe(true);
      expect(step.reward).toBe(0);
      expect(SweEnvClient.structToObject(step.info)['end_reason']).toBe('sandbox_shell_broken');
      expect(step.observation).toMatch(/starts in a pristine copy of the task/);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });

  it("the control fails on an image whose shell never starts: that stays the environment's failure", async () => {
    const task = t.server.tasks.get(TASK);
    // An image with the same break built in: the control (a pristine copy of this task) fails too.
    const box = await t.server.provider.create({
      image: task.image,
      workdir: task.workdir,
      maxLifetimeS: 120,
      role: 'build',
      episodeId: `build-${randomUUID()}`,
      limits: t.server.config.limits,
    });
    const tag = `swe-env-test/broken-shell:${randomUUID().slice(0, 8)}`;
    try {
      expect((await box.exec(['bash', '-c', BREAK_ACTIVATE])).exitCode).toBe(0);
      const [repo, version] = tag.split(':') as [string, string];
      await t.server.provider.docker.getContainer(box.id).commit({ repo, tag: version });
      images.push(tag);
    } finally {
      await box.remove();
    }
    const grader = new Grader(
      t.server.provider,
      new Semaphore(2),
      { limits: t.server.config.limits, testTimeoutS: 60, logLimitBytes: 1024 * 1024, maxGradings: 2 },
      pino({ level: 'silent' }),
    );
    expect(await shellStartsOnPristineCopy(grader, { ...task, image: tag }, `control-test-${randomUUID()}`)).toBe(false);
    expect(await shellStartsOnPristineCopy(grader, task, `control-test-${randomUUID()}`)).toBe(true);
  });
});
