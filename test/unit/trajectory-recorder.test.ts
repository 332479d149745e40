import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { readTrajectory, TRAJECTORY_FORMAT, type TrajectoryHeader, type TrajectoryStep } from '../../src/trajectories/trajectory-format.js';
import { TrajectoryRecorder } from '../../src/trajectories/trajectory-recorder.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function header(id: string): TrajectoryHeader {
  return {
    type: 'episode',
    format: TRAJECTORY_FORMAT,
    episode_id: id,
    task_id: 't',
    dataset: 'd',
    repo: 'r',
    base_commit: 'b',
    group_id: '',
    seed: 0,
    options: {},
    server_id: 's',
    started_at: new Date().toISOString(),
    prompt: 'p',
    tools: [],
  };
}

function step(index: number, observation: string): TrajectoryStep {
  return {
    type: 'step',
    index,
    call_id: '',
    tool: 'bash',
    arguments: { command: 'x' },
    observation,
    status: 'OK',
    exit_code: 0,
    duration_s: 0,
    reward: 0,
    terminated: false,
    truncated: false,
    info: {},
    at: '',
  };
}

async function recorder(maxTotalBytes: number, maxEpisodeBytes: number): Promise<{ r: TrajectoryRecorder; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'traj-'));
  dirs.push(dir);
  return { r: await TrajectoryRecorder.start({ dir, serverId: 's', maxTotalBytes, maxEpisodeBytes }, pino({ level: 'silent' })), dir };
}

const end = { type: 'end' as const, reward: 1, resolved: true, end_reason: 'submitted', steps: 3, duration_s: 1, ended_at: '' };

describe('the trajectory recorder', () => {
  it('keeps an episode under its bound: later steps dropped and counted in the end line, the end kept', async () => {
    const { r } = await recorder(1e9, 2000);
    const t = r.begin(header('a'), Date.now());
    for (let i = 0; i < 3; i++) t.step(step(i, 'y'.repeat(700)));
    t.end(end);
    await t.close();
    const back = await readTrajectory(t.file);
    expect(back?.steps.map((s) => s.index)).toEqual([0]);
    expect(back?.end?.steps_dropped).toBe(2);
    expect(r.dropped.episode_bound).toBe(2);
  });

  it('drops what does not fit the directory bound, and never throws when the disk refuses', async () => {
    const { r, dir } = await recorder(600, 1e9);
    const t = r.begin(header('a'), Date.now());
    t.step(step(0, 'z'.repeat(800)));
    await t.close();
    expect(r.dropped.total_bound).toBe(1);
    expect((await readTrajectory(t.file))?.steps).toEqual([]);

    // A file that cannot be written (here: a directory stands where it goes): dropped and counted.
    const big = await recorder(1e9, 1e9);
    const now = Date.now();
    mkdirSync(big.r.fileOf('b', now), { recursive: true });
    const u = big.r.begin(header('b'), now);
    u.step(step(0, 'ok'));
    u.end(end);
    await u.close();
    expect(big.r.dropped.write_error).toBe(1);
    void dir;
  });
});
