import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll } from 'vitest';
import { CHEAT_TASK } from '../cheats/shared/episode-attack.js';
import { buildFromFiles, removeImages } from './registry-images.js';
import { demoImage } from './task-images.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from './server.js';

/**
 * A variant image of the cheat task (built FROM its demo image with `dockerfileLines` and `files`)
 * served twice, with the grading's exec channel on and off, for tests that compare the two. The
 * image, the servers and their containers are removed afterwards, whatever happened.
 */
export interface ChannelVariant {
  readonly on: () => TestServer;
  readonly off: () => TestServer;
  /** The task's gold patch. */
  readonly gold: () => string;
}

export function channelVariantServers(variant: {
  readonly name: string;
  readonly dockerfileLines: readonly string[];
  readonly files?: Record<string, string | Buffer | { content: Buffer; mode: number }>;
  /** The task's record as served (the image name is set after). */
  readonly record?: (record: Record<string, unknown>) => Record<string, unknown>;
}): ChannelVariant {
  const docker = new Docker();
  const image = `swe-env-test/${variant.name}:${randomUUID().slice(0, 8)}`;
  let scratch: string | undefined;
  let on: TestServer | undefined;
  let off: TestServer | undefined;
  let gold = '';
  beforeAll(async () => {
    await buildFromFiles(docker, image, {
      Dockerfile: [`FROM ${demoImage(CHEAT_TASK)}`, ...variant.dockerfileLines, `LABEL swe-env.test=${variant.name}`, ''].join('\n'),
      ...variant.files,
    });
    const record = (await readFile(DEMO_TASKS, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r['instance_id'] === CHEAT_TASK)!;
    gold = String(record['patch']);
    scratch = await mkdtemp(join(tmpdir(), `swe-env-${variant.name}-`));
    const file = join(scratch, 'tasks.jsonl');
    await writeFile(file, `${JSON.stringify({ ...(variant.record?.(record) ?? record), image_name: image })}\n`);
    on = await startTestServer({ taskFiles: [file], testTimeoutS: 30 });
    off = await startTestServer({ taskFiles: [file], testTimeoutS: 30, gradingExecChannel: false });
  }, 600_000);
  afterAll(async () => {
    await on?.stop();
    await off?.stop();
    if (on) await expectNoContainers(on.server.provider);
    await removeImages(docker, [image]);
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
  return { on: () => on!, off: () => off!, gold: () => gold };
}
