import { appendFileSync, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EpisodeJournal } from '../../src/server/persistence/episode-journal.js';
import { RECORD_VERSION, type EpisodeRecord } from '../../src/server/persistence/episode-record.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function journal(): Promise<{ journal: EpisodeJournal; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(dir);
  return { journal: await EpisodeJournal.open(dir, pino({ level: 'silent' })), dir };
}

function record(id: string, stepCount: number, extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    version: RECORD_VERSION,
    id,
    taskId: 't',
    serverId: 's',
    options: { maxSteps: 10, commandTimeoutS: 1, episodeTimeoutS: 1, outputLimitBytes: 1, truncation: 'grade', idleTimeoutS: 1 },
    seed: 0,
    groupId: '',
    containerId: 'c',
    pristineHead: 'h',
    createdAt: 1,
    stepCount,
    recent: [],
    cwd: '/',
    ...extra,
  };
}

describe('the episode journal', () => {
  it('appends only the changed fields and reads back the last state, an unset field included', async () => {
    const { journal: j, dir } = await journal();
    await j.save(record('a', 0));
    await j.save(record('a', 0, { inflight: { index: 0, name: 'bash', argumentsJson: '{}', callId: '', startedAt: 5 } }));
    await j.save(record('a', 1, { cwd: '/tmp' }));
    const lines = readFileSync(join(dir, 'episodes', 'a.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2]!)).toEqual({ $set: { stepCount: 1, cwd: '/tmp' }, $unset: ['inflight'] });
    const [back] = await j.loadAll();
    expect(back).toEqual(record('a', 1, { cwd: '/tmp' }));
    await j.close();
  });

  it('ignores a torn last line (the process died in its write) and removes an unreadable file', async () => {
    const { journal: j, dir } = await journal();
    await j.save(record('a', 0));
    await j.save(record('a', 1));
    await j.close();
    appendFileSync(join(dir, 'episodes', 'a.jsonl'), '{"$set":{"stepCount":');
    appendFileSync(join(dir, 'episodes', 'b.jsonl'), 'not json\n{"$set":{}}\n');
    const back = await j.loadAll();
    expect(back.map((r) => [r.id, r.stepCount])).toEqual([['a', 1]]);
    expect(readdirSync(join(dir, 'episodes'))).toEqual(['a.jsonl']);
  });

  it('rewrites a grown file as one snapshot line', async () => {
    const { journal: j, dir } = await journal();
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 20; i++) {
      await j.save(
        record('a', i, {
          recent: [
            {
              stepIndex: i,
              callId: '',
              observation: big + i,
              reward: 0,
              terminated: false,
              truncated: false,
              status: 'OK',
              exitCode: 0,
              info: {},
            },
          ],
        }),
      );
    }
    const file = join(dir, 'episodes', 'a.jsonl');
    expect(statSync(file).size).toBeLessThan(20 * 64 * 1024);
    const [back] = await j.loadAll();
    expect(back?.stepCount).toBe(19);
    expect(back?.recent[0]?.observation).toBe(big + 19);
    await j.close();
  });

  it('drops a record it cannot write (counted), and writes it whole again once it can', async () => {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions: make the write fail by a name that cannot be a file.
      const { journal: j, dir } = await journal();
      rmSync(join(dir, 'episodes'), { recursive: true });
      expect(await j.save(record('a', 0))).toBe(false);
      expect(j.dropped).toBe(1);
      const again = await EpisodeJournal.open(dir, pino({ level: 'silent' }));
      expect(await again.save(record('a', 1))).toBe(true);
      expect((await again.loadAll())[0]?.stepCount).toBe(1);
      await again.close();
      return;
    }
    const { journal: j, dir } = await journal();
    chmodSync(join(dir, 'episodes'), 0o500);
    expect(await j.save(record('a', 0))).toBe(false);
    expect(j.dropped).toBe(1);
    chmodSync(join(dir, 'episodes'), 0o700);
    expect(await j.save(record('a', 1))).toBe(true);
    expect((await j.loadAll())[0]?.stepCount).toBe(1);
  });
});
