import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

/** Prometheus metrics on their own port, moving as a real episode runs. */
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ metricsPort: 0 });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${t.server.metricsPort}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('metrics', () => {
  it('move when an episode runs: live episodes, steps by tool and status, latencies, gradings by phase, container starts', async () => {
    const { tasks } = await loadTaskFile(DEMO_TASKS);
    const task = tasks.find((x) => x.id === 'swe-env-demo__minicalc-1')!;
    const before = await scrape();
    const { episodeId } = await t.client.reset({ taskId: task.id });
    const during = await scrape();
    expect(sample(during, 'swe_env_live_episodes')).toBe(1);
    await t.client.bash(episodeId, 0, applyPatchCommand(task.goldPatch));
    await t.client.bash(episodeId, 1, 'false');
    const submitted = await t.client.submit(episodeId, 2);
    expect(submitted.reward).toBe(1);
    await t.client.close(episodeId);
    await t.client.bash('no-such-episode', 0, 'true').catch(() => undefined);
    const after = await scrape();
    expect(sample(after, 'swe_env_live_episodes')).toBe(0);
    expect(
      sample(after, 'swe_env_steps_total', 'tool="bash",status="OK"') - sample(before, 'swe_env_steps_total', 'tool="bash",status="OK"'),
    ).toBe(2);
    expect(sample(after, 'swe_env_steps_total', 'tool="submit_solution",status="OK"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_rpc_seconds_count', 'method="Reset"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_rpcs_total', 'method="Step",code="NOT_FOUND"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_gradings_total', 'outcome="resolved"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_grading_seconds_count', 'phase="tests"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_container_starts_total', 'role="episode",outcome="started"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_container_starts_total', 'role="grader",outcome="started"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'swe_env_max_episodes')).toBe(t.server.config.maxEpisodes);
    expect(after).toContain('swe_env_process_resident_memory_bytes');
    const other = await fetch(`http://127.0.0.1:${t.server.metricsPort}/other`);
    expect(other.status).toBe(404);
  });

  it('every metric the Grafana dashboard (deploy/grafana) queries is one the server exports', async () => {
    const dashboard = await readFile(join(packageRoot(), 'deploy', 'grafana', 'swe-env-dashboard.json'), 'utf8');
    const names = [...new Set([...dashboard.matchAll(/swe_env_[a-z_]+/g)].map((m) => m[0]))];
    expect(names.length).toBeGreaterThan(10);
    const text = await scrape();
    for (const name of names) expect(text, name).toMatch(new RegExp(`^# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `, 'm'));
  });
});
