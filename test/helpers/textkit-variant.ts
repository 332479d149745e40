import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { packageRoot } from '../../src/common/paths.js';
import { buildFromFiles, removeImages } from './registry-images.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from './server.js';
import { demoImage } from './task-images.js';
import { treeDiff } from './tree-diff.js';

const DEMO = join(packageRoot(), 'tasks', 'demo');

/** A demo textkit task on an image whose repository differs from the demo's, and a server that serves it. */
export interface TextkitVariant {
  readonly server: TestServer;
  /** A patch against the variant's base commit that writes these files. */
  readonly patch: (files: Readonly<Record<string, string>>) => string;
  /** Stops the server and removes the image and the scratch folder. */
  readonly stop: () => Promise<void>;
}

/**
 * textkit's task `taskId` on an image built FROM its demo image with `files` (repository paths)
 * committed over the demo's, its record's gold patch made against them; `record` may change the
 * record further (a test patch of its own).
 */
export async function startTextkitVariant(options: {
  readonly taskId: string;
  readonly name: string;
  readonly files: Readonly<Record<string, string>>;
  readonly message: string;
  readonly goldFiles: Readonly<Record<string, string>>;
  readonly record?: (record: Record<string, string>, patch: TextkitVariant['patch']) => Record<string, string>;
}): Promise<TextkitVariant> {
  const docker = new Docker();
  const image = `swe-env-test/${options.name}:${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), `swe-env-${options.name}-`));
  const repo = join(dir, 'repo');
  const patch = (files: Readonly<Record<string, string>>): string => treeDiff(repo, files);
  let server: TestServer | undefined;
  const stop = async (): Promise<void> => {
    await server?.stop();
    if (server) await expectNoContainers(server.server.provider);
    await removeImages(docker, [image]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    cpSync(join(DEMO, 'repos', 'textkit'), repo, { recursive: true });
    const context: Record<string, string> = {};
    const copies: string[] = [];
    Object.entries(options.files).forEach(([path, content], i) => {
      writeFileSync(join(repo, path), content);
      context[`file-${i}`] = content;
      copies.push(`COPY file-${i} /testbed/${path}`);
    });
    await buildFromFiles(docker, image, {
      Dockerfile: [
        `FROM ${demoImage(options.taskId)}`,
        ...copies,
        `RUN cd /testbed && git add -A && git -c user.name=swe-env -c user.email=swe-env@localhost commit -qm '${options.message.replaceAll("'", '')}'`,
        `LABEL swe-env.test=${options.name}`,
        '',
      ].join('\n'),
      ...context,
    });
    const record = readFileSync(DEMO_TASKS, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, string>)
      .find((r) => r['instance_id'] === options.taskId)!;
    const variant = { ...record, image_name: image, patch: patch(options.goldFiles) };
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `${JSON.stringify(options.record ? options.record(variant, patch) : variant)}\n`);
    server = await startTestServer({ taskFiles: [file] });
    return { server, patch, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
