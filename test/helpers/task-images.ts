import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { expect } from 'vitest';
import type { SweEnvClient } from '../../src/client/client.js';
import type { PrefetchResponse__Output } from '../../src/generated/swe_env/v1/PrefetchResponse.js';
import type { LocalRegistry } from './local-registry.js';
import { DEMO_TASKS } from './server.js';
import { buildFromFiles, removeImages } from './registry-images.js';

/**
 * Task images for the image-supply tests: a demo task's image plus one layer of its own (a few MB
 * of random bytes outside /testbed), so a Reset of the task really runs its checks in the pulled
 * image, the image's size is measurable, and every pull really downloads a layer.
 */

/** The demo image a demo task runs in (present on the engine after the set-up). */
export function demoImage(taskId: string): string {
  return `sweb.eval.x86_64.${taskId.toLowerCase()}:latest`;
}

/** Builds `reference` FROM the task's demo image with `mb` MB of random bytes of its own. */
export async function buildTaskImage(
  docker: Docker,
  taskId: string,
  mb: number,
  reference = `swe-env-test/supply:${randomUUID().slice(0, 8)}`,
): Promise<string> {
  const dockerfile = `FROM ${demoImage(taskId)}\nCOPY payload /opt/swe-env-test-payload\nLABEL swe-env.test=image-supply\n`;
  return buildFromFiles(docker, reference, { Dockerfile: dockerfile, payload: randomBytes(Math.round(mb * 1024 * 1024)) });
}

/**
 * A task image in `registry` only: built, pushed as HOST/swe-env-test/REPO:v1 and removed from
 * the engine (its own layer too), so a pull really downloads. Every name made goes into `made`.
 */
export async function pushTaskImage(
  docker: Docker,
  registry: LocalRegistry,
  taskId: string,
  repo: string,
  made: Set<string>,
  mb = 2,
): Promise<string> {
  const local = await buildTaskImage(docker, taskId, mb);
  made.add(local);
  made.add(`${registry.host}/swe-env-test/${repo}:v1`);
  const reference = await registry.push(local, `swe-env-test/${repo}`, 'v1');
  await removeImages(docker, [local]);
  return reference;
}

/** The same image named through another host (a proxy or mirror in front of the registry). */
export function viaHost(reference: string, host: string): string {
  return `${host}${reference.slice(reference.indexOf('/'))}`;
}

/** The Prefetch RPC (the small client has no method for it). */
export function prefetch(client: SweEnvClient, taskIds: string[]): Promise<PrefetchResponse__Output> {
  return new Promise((resolve, reject) => {
    client.raw.prefetch({ taskIds }, { deadline: new Date(Date.now() + 30_000) }, (error, value) =>
      error ? reject(error) : resolve(value!),
    );
  });
}

/** Demo task records whose image is `image_name` given per task id: written as a JSONL file in `dir`. */
export function writeTaskFile(dir: string, images: Record<string, string>, name = 'tasks.jsonl'): string {
  const records = readFileSync(DEMO_TASKS, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const lines: string[] = [];
  for (const [taskId, image] of Object.entries(images)) {
    const record = records.find((r) => r['instance_id'] === taskId);
    if (!record) throw new Error(`no demo task ${taskId}`);
    lines.push(JSON.stringify({ ...record, image_name: image }));
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Docker's config.json with Basic credentials per registry host, written in `dir`. */
export function writeRegistryConfig(dir: string, auths: Record<string, { user: string; password: string }>, name = 'config.json'): string {
  const entries = Object.fromEntries(
    Object.entries(auths).map(([host, a]) => [host, { auth: Buffer.from(`${a.user}:${a.password}`).toString('base64') }]),
  );
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ auths: entries }));
  return path;
}

/** The server's Prometheus text. */
export async function scrape(metricsPort: number | undefined): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample line (`name{labels} value`), 0 when absent. */
export function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * The manifest GETs a registry (or proxy) log shows for the repository of `HOST/repo:tag`. The
 * engine pulls a tag as HEAD of the tag, then GET of the manifest by its digest: one GET per pull
 * (each test image has a repository of its own).
 */
export function manifestGets(requests: readonly { method: string; path: string; status: number }[], reference: string): number {
  const repo = reference.slice(reference.indexOf('/') + 1, reference.lastIndexOf(':'));
  return requests.filter((r) => r.method === 'GET' && r.path.startsWith(`/v2/${repo}/manifests/`) && r.status === 200).length;
}
