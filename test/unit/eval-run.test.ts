import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { identityAliveHere, identityGone, processIdentity } from '../../src/common/process-identity.js';
import { loadPredictions } from '../../src/reward/eval-run/predictions.js';
import { runReport, type InstanceResult } from '../../src/reward/eval-run/run-report.js';
import { closestIds } from '../../src/tasks/did-you-mean.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-env-preds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('predictions files', () => {
  const a = { instance_id: 'o__r-1', model_patch: 'diff', model_name_or_path: 'm' };
  const b = { instance_id: 'o__r-2', model_patch: null, model_name_or_path: 'm' };

  it('reads a JSON list, an object keyed by id (SWE-agent), one record, and JSONL alike', async () => {
    const want = [
      { instanceId: 'o__r-1', modelPatch: 'diff', model: 'm' },
      { instanceId: 'o__r-2', modelPatch: null, model: 'm' },
    ];
    expect(await loadPredictions(file('list.json', JSON.stringify([a, b], null, 2)))).toEqual(want);
    expect(await loadPredictions(file('keyed.json', JSON.stringify({ [a.instance_id]: a, [b.instance_id]: b }, null, 2)))).toEqual(want);
    expect(await loadPredictions(file('lines.jsonl', `${JSON.stringify(a)}\n\n${JSON.stringify(b)}\n`))).toEqual(want);
    expect(await loadPredictions(file('one.json', JSON.stringify(a, null, 2)))).toEqual([want[0]]);
  });

  it('refuses what would be graded wrongly, saying where and what to write', async () => {
    await expect(loadPredictions(join(dir, 'missing.jsonl'))).rejects.toThrow(/--predictions .*missing\.jsonl: no such file/);
    await expect(loadPredictions(file('empty.jsonl', '\n'))).rejects.toThrow(/no predictions in the file/);
    await expect(loadPredictions(file('bad.json', '[{"instance_id": 1,'))).rejects.toThrow(/not valid JSON/);
    await expect(loadPredictions(file('bad-line.jsonl', `${JSON.stringify(a)}\n{oops}\n`))).rejects.toThrow(
      /bad-line\.jsonl:2: not valid JSON/,
    );
    await expect(loadPredictions(file('key.jsonl', JSON.stringify({ instance_id: 'x', diff: 'd' })))).rejects.toThrow(
      /x has no model_patch \(found diff\)/,
    );
    await expect(loadPredictions(file('type.jsonl', JSON.stringify({ instance_id: 'x', model_patch: 3 })))).rejects.toThrow(
      /must be a string or null/,
    );
    await expect(loadPredictions(file('dup.jsonl', `${JSON.stringify(a)}\n${JSON.stringify(a)}\n`))).rejects.toThrow(
      /o__r-1 is predicted twice \(line 1 and line 2\)/,
    );
  });
});

describe('the run report (swebench 5.0.2 make_run_report)', () => {
  it('counts as the harness does: no prediction incomplete, an empty patch only empty, graded completed, no report an error', () => {
    const p = (id: string, patch: string | null) => [id, { instanceId: id, modelPatch: patch, model: 'm' }] as const;
    const predictions = new Map([p('a', 'x'), p('b', ''), p('c', null), p('d', 'x'), p('e', 'x'), p('f', 'x')]);
    const results = new Map<string, InstanceResult>([
      ['a', { kind: 'graded', resolved: true }],
      ['d', { kind: 'graded', resolved: false }],
      ['e', { kind: 'error', reason: 'engine gone', infra: true }],
    ]);
    const report = runReport(['a', 'b', 'c', 'd', 'e', 'f', 'g'], predictions, results);
    expect(report).toMatchObject({
      total_instances: 7,
      submitted_instances: 6,
      completed_ids: ['a', 'd'],
      resolved_ids: ['a'],
      unresolved_ids: ['d'],
      empty_patch_ids: ['b', 'c'],
      error_ids: ['e'],
      infra_failure_ids: ['e'],
      failure_reasons: { e: 'engine gone' },
      incomplete_ids: ['f', 'g'],
      schema_version: 2,
    });
  });
});

describe('helpers', () => {
  it('names the nearest task ids for a typo, none for an unrelated id', () => {
    const known = ['django__django-11099', 'django__django-11133', 'astropy__astropy-12907'];
    expect(closestIds('django__django-1109', known)[0]).toBe('django__django-11099');
    expect(closestIds('sympy__sympy-20590', known)).toEqual([]);
  });

  it('tells a live process from a gone one, and a reused pid from its first owner', () => {
    const me = processIdentity();
    expect(identityAliveHere(me)).toBe(true);
    expect(identityGone(me)).toBe(false);
    const [host, pid] = me.split('/');
    expect(identityGone(`${host}/${pid}/1`)).toBe(true); // same pid, another start time
    expect(identityGone(`${host}/4194303/`)).toBe(true); // no such pid
    expect(identityGone(`another-host/${pid}/1`)).toBe(false); // not ours to judge
    expect(identityAliveHere(`another-host/${pid}/1`)).toBe(false);
  });

  it('takes a zombie (ended, not reaped) for gone', async () => {
    // A child that exits while its parent never waits for it stays a zombie.
    const { spawn } = await import('node:child_process');
    const parent = spawn('bash', ['-c', 'sleep 0.1 & exec sleep 30'], { stdio: 'ignore' });
    try {
      // Once bash has forked it and `sleep 0.1` has ended (the parent, `exec sleep 30`, never reaps it).
      const child = await vi.waitFor(
        () => {
          const pid = execChildren(parent.pid!);
          expect(pid).not.toBe('');
          expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /);
          return Number(pid);
        },
        { timeout: 30_000, interval: 20 },
      );
      expect(identityGone(processIdentity(child))).toBe(true);
      expect(identityAliveHere(processIdentity(parent.pid))).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

/** The first child pid of a process (from /proc/PID/task/PID/children). */
function execChildren(pid: number): string {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0] ?? '';
}
