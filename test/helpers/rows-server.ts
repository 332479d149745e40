import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import type { ServerConfigInput } from '../../src/server/config.js';
import { expectNoContainers, startTestServer, type TestServer } from './server.js';

/**
 * A server over task rows a test file makes (variants of demo rows), for that file: beforeAll
 * writes the rows to a scratch task file and starts the server with `options`; afterAll stops it,
 * checks no container is left and removes the scratch folder. Returns the running server's getter.
 */
export function rowsServer(
  rows: () => Promise<ReadonlyArray<Record<string, string>>>,
  options: ServerConfigInput = {},
  hookTimeoutMs = 900_000,
): () => TestServer {
  let scratch: string | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    const made = await rows();
    scratch = await mkdtemp(join(tmpdir(), 'swe-env-rows-'));
    const file = join(scratch, 'tasks.jsonl');
    await writeFile(file, made.map((r) => `${JSON.stringify(r)}\n`).join(''));
    server = await startTestServer({ ...options, taskFiles: [file] });
  }, hookTimeoutMs);
  afterAll(async () => {
    try {
      if (server) {
        await server.stop();
        await expectNoContainers(server.server.provider);
      }
    } finally {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    }
  });
  return () => {
    if (!server) throw new Error('the server over the test rows did not start');
    return server;
  };
}

/** Evaluate, once per key: the tests that read one grading share its report. */
export function gradedOnce(server: () => TestServer): (task: string, patch: string, key: string) => Promise<GradeReport__Output> {
  const graded = new Map<string, Promise<GradeReport__Output>>();
  return (task, patch, key) => {
    let report = graded.get(key);
    if (!report) {
      report = server()
        .client.evaluate(task, patch)
        .then((r) => r.report!);
      report.catch(() => undefined);
      graded.set(key, report);
    }
    return report;
  };
}
