import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { compileConfig } from '../../src/server/config.js';
import { imageName, SWE_GYM_TEMPLATE, SWEBENCH_NAMESPACE_TEMPLATE } from '../../src/tasks/image-name.js';
import { loadTaskFile, testList } from '../../src/tasks/loader.js';

const record = (over: Record<string, unknown> = {}) => ({
  instance_id: 'django__django-11099',
  repo: 'django/django',
  base_commit: 'abc',
  problem_statement: 'p',
  test_patch: 'diff --git a/t.py b/t.py\n',
  version: '3.0',
  FAIL_TO_PASS: '["t1"]',
  PASS_TO_PASS: ['t2'],
  ...over,
});

describe('loadTaskFile', () => {
  it("takes a fail_only row whose runner swe-env's reporter attaches to (jasmine), leaves out any other and says why", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-test-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const jsonl = join(dir, 'tasks.jsonl');
    const evalScript = (command: string) =>
      ['#!/bin/bash', 'git checkout abc test/a.js', ": '>>>>> Start Test Output'", command, ": '>>>>> End Test Output'"].join('\n');
    const rows = [
      record({
        instance_id: 'chartjs__Chart.js-1',
        repo: 'chartjs/Chart.js',
        version: '4.0',
        eval_type: 'fail_only',
        log_parser: 'parse_log_chart_js',
        eval_script: evalScript('npx karma start --single-run'),
      }),
      record({ instance_id: 'django__django-2', eval_type: 'pass_and_fail' }),
      record({
        instance_id: 'markedjs__marked-2811',
        repo: 'markedjs/marked',
        version: '5.0',
        eval_type: 'fail_only',
        log_parser: 'parse_log_marked',
        eval_script: evalScript('./node_modules/.bin/jasmine --no-color --config=jasmine.json'),
      }),
      record({
        instance_id: 'markedjs__marked-3',
        repo: 'markedjs/marked',
        version: '5.0',
        eval_type: 'fail_only',
        log_parser: 'parse_log_marked',
        eval_script: evalScript('npm test'),
      }),
    ];
    await writeFile(jsonl, rows.map((r) => JSON.stringify(r)).join('\n'));
    const result = await loadTaskFile(jsonl);
    expect(result.tasks.map((t) => [t.id, t.failOnly])).toEqual([
      ['django__django-2', undefined],
      ['markedjs__marked-2811', true],
    ]);
    expect(result.problems.map((p) => [p.where, p.field])).toEqual([
      ['line 1', 'eval_type'],
      ['line 4', 'eval_type'],
    ]);
    expect(result.problems[0]?.message).toMatch(/fail_only: .*jasmine runs only.*every patch would score 0.*left out/);
  });

  it('loads JSONL and JSON arrays, decodes JSON-encoded test lists, reports bad records by line and field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-test-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const jsonl = join(dir, 'tasks.jsonl');
    await writeFile(
      jsonl,
      [JSON.stringify(record()), '{not json', JSON.stringify(record({ instance_id: 'x', FAIL_TO_PASS: 'nope' })), ''].join('\n'),
    );
    const result = await loadTaskFile(jsonl);
    expect(result.tasks).toHaveLength(1);
    expect(result.tasks[0]).toMatchObject({
      failToPass: ['t1'],
      passToPass: ['t2'],
      version: '3.0',
      image: 'sweb.eval.x86_64.django__django-11099:latest',
      workdir: '/testbed',
    });
    expect(result.problems.map((p) => `${p.where} ${p.field}`)).toEqual(['line 2 ', 'line 3 FAIL_TO_PASS']);

    const json = join(dir, 'tasks.json');
    await writeFile(
      json,
      JSON.stringify([record({ image_name: 'custom:1' }), record({ instance_id: 'django__django-2', base_commit: '' })]),
    );
    const arr = await loadTaskFile(json);
    expect(arr.tasks.map((t) => t.image)).toEqual(['custom:1']);
    expect(arr.problems[0]).toMatchObject({ where: '#1', field: 'base_commit' });
  });

  it('decodes test lists', () => {
    expect(testList('["a", "b"]')).toEqual({ list: ['a', 'b'] });
    expect(testList(['a'])).toEqual({ list: ['a'] });
    expect(testList(undefined)).toEqual({ list: [] });
    expect(testList('[1]')).toHaveProperty('error');
  });
});

describe('imageName', () => {
  it('renders the SWE-bench and SWE-Gym forms', () => {
    const r = { id: 'getmoto__moto-5406', repo: 'getmoto/moto', version: '4.0' };
    expect(imageName(SWEBENCH_NAMESPACE_TEMPLATE, r)).toBe('swebench/sweb.eval.x86_64.getmoto_1776_moto-5406:latest');
    expect(imageName(SWE_GYM_TEMPLATE, r)).toBe('xingyaoww/sweb.eval.x86_64.getmoto_s_moto-5406:latest');
  });
});

describe('compileConfig', () => {
  it('fills defaults and freezes', () => {
    const c = compileConfig({ port: 0 });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.defaults)).toBe(true);
    expect(c.defaults.maxSteps).toBe(100);
  });

  it('rejects nonsense', () => {
    expect(() => compileConfig({ maxEpisodes: 0 })).toThrow(/maxEpisodes/);
    expect(() => compileConfig({ serverId: 'a b' })).toThrow(/serverId/);
    expect(() => compileConfig({ defaults: { commandTimeoutS: -1 } })).toThrow(/commandTimeoutS/);
  });
});

describe('parquet and SWE-smith records', () => {
  it('loads a parquet file as Hugging Face publishes it, and SWE-smith records with the bug patch reversed into the gold', async () => {
    const { parquetWriteFile } = await import('hyparquet-writer');
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-pq-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'test-00000-of-00001.parquet');
    const rows = [record(), record({ instance_id: 'django__django-2', FAIL_TO_PASS: '["t9"]' })];
    const columns = Object.keys(rows[0]!).map((name) => ({
      name,
      data: rows.map((r) => {
        const v = (r as Record<string, unknown>)[name];
        return typeof v === 'string' ? v : JSON.stringify(v);
      }),
      type: 'STRING' as const,
    }));
    parquetWriteFile({ filename: file, columnData: columns });
    const loaded = await loadTaskFile(file);
    expect(loaded.problems).toEqual([]);
    expect(loaded.tasks.map((t) => t.id)).toEqual(['django__django-11099', 'django__django-2']);
    expect(loaded.tasks[1]!.failToPass).toEqual(['t9']);
    expect(loaded.tasks[0]!.dataset).toBe('test-00000-of-00001');

    const smithFile = join(dir, 'smith.json');
    const bug = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-good\n+bad\n';
    await writeFile(
      smithFile,
      JSON.stringify([
        {
          instance_id: 'o__r.abc1234.func_pm__x',
          repo: 'swesmith/o__r.abc1234',
          patch: bug,
          FAIL_TO_PASS: ['t.py::a'],
          PASS_TO_PASS: [],
          image_name: 'jyangballin/swesmith.x86_64.o_1776_r.abc1234',
        },
      ]),
    );
    const smith = await loadTaskFile(smithFile);
    expect(smith.tasks[0]).toMatchObject({
      baseCommit: 'abc1234',
      testPatch: '',
      bugPatch: bug,
      image: 'jyangballin/swesmith.x86_64.o_1776_r.abc1234',
    });
    expect(smith.tasks[0]!.goldPatch).toContain('-bad\n+good');
  });
});
