import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it, afterAll } from 'vitest';
import { evalPlan, type EvalPlan } from '../../src/reward/eval-plan/plan.js';
import { harnessEvalScript } from '../../src/reward/eval-plan/render.js';
import { SWE_BENCH_SPECS } from '../../src/reward/eval-plan/swe-bench-specs.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

/**
 * Our eval plan against the official harness, installed from PyPI: for every (repository, version)
 * of swebench 4.1's table, a synthetic record (its test patch modifies, creates and deletes test
 * files and touches data files) gets the same eval.sh from our plan as from the harness's
 * make_test_spec, byte for byte, and the same log parser. Then the same script as a SWE-bench 5.x
 * row's eval_script: swebench 5.0.2's make_test_spec reads it, and our plan read from it equals
 * the one from the table. Accepted differences are listed in ACCEPTED and checked to stay so.
 */
interface HarnessEntry {
  record: Record<string, unknown> & { instance_id: string; repo: string; version: string };
  parser: string | null;
  eval_script?: string;
  error?: string;
}

let entries: HarnessEntry[];
let tasks: Map<string, Task>;
let rowTasks: Map<string, Task>;

/** Entries the harness itself cannot grade: it has no test command (and no parser) for them. */
const ACCEPTED = { noTestCommand: 'dbt-labs/dbt-core' };

/** What a plan runs, without where it came from. */
function steps(plan: EvalPlan): Omit<EvalPlan, 'source' | 'notes'> {
  return {
    evalCommands: plan.evalCommands,
    install: plan.install,
    beforeTestPatch: plan.beforeTestPatch,
    afterTestPatch: plan.afterTestPatch,
    testCommand: plan.testCommand,
    resetFiles: plan.resetFiles,
    harnessParser: plan.harnessParser,
  };
}

/** Temporary folders of the record files, removed after the file's tests. */
const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

async function load(records: unknown[]): Promise<Map<string, Task>> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-conformance-'));
  scratch.push(dir);
  const file = join(dir, 'records.jsonl');
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n'));
  const loaded = await loadTaskFile(file);
  expect(loaded.problems).toEqual([]);
  return new Map(loaded.tasks.map((t) => [t.id, t]));
}

beforeAll(async () => {
  const env = await pythonEnv();
  entries = (await runPythonJsonLines('test/conformance/harness41_plans.py', [], {
    pythonPath: join(env, 'harness-4.1'),
  })) as HarnessEntry[];
  tasks = await load(entries.map((e) => e.record));
  // The same records as 5.x rows: the harness's script and parser travel with the row.
  const rows = entries.filter((e) => e.eval_script).map((e) => ({ ...e.record, eval_script: e.eval_script, log_parser: e.parser }));
  rowTasks = await load(rows);
}, 300_000);

describe('eval plans against swebench 4.1 make_test_spec', () => {
  it('covers every (repository, version) of the harness table', () => {
    const harnessRepos = new Set(entries.map((e) => e.record.repo));
    expect(harnessRepos.size).toBeGreaterThanOrEqual(18);
    expect(entries.length).toBeGreaterThanOrEqual(290);
    const ours = Object.entries(SWE_BENCH_SPECS).flatMap(([repo, groups]) => groups.flatMap((g) => g.versions.map((v) => `${repo}@${v}`)));
    expect(new Set(ours)).toEqual(new Set(entries.map((e) => `${e.record.repo}@${e.record.version}`)));
  });

  it('writes the same eval.sh and picks the same parser for every entry the harness can grade', () => {
    const mismatches: string[] = [];
    for (const entry of entries) {
      const task = tasks.get(entry.record.instance_id)!;
      const plan = evalPlan(task);
      if (entry.error) {
        expect(entry.record.repo).toBe(ACCEPTED.noTestCommand);
        continue;
      }
      expect(plan.source).toBe('swe-bench');
      if (harnessEvalScript(plan, task) !== entry.eval_script)
        mismatches.push(`${entry.record.repo} ${entry.record.version}: eval.sh differs`);
      if (plan.harnessParser !== entry.parser) mismatches.push(`${entry.record.repo}: parser ${plan.harnessParser} vs ${entry.parser}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('the entries the harness cannot grade are only the accepted ones, and say so in the plan', () => {
    const failing = entries.filter((e) => e.error);
    expect(new Set(failing.map((e) => e.record.repo))).toEqual(new Set([ACCEPTED.noTestCommand]));
    for (const e of failing) expect(evalPlan(tasks.get(e.record.instance_id)!).notes.join()).toMatch(/no test command/);
  });
});

describe('SWE-bench 5.x rows: the eval_script travels with the row', () => {
  it('swebench 5.0.2 reads every row, and our plan from the row equals our plan from the table', async () => {
    const rows = entries
      .filter((e) => e.eval_script)
      .map((e) => ({ ...e.record, eval_script: e.eval_script, log_parser: e.parser, image: 'x' }));
    const specs = (await runPythonJsonLines('test/conformance/harness5_specs.py', rows)) as Array<{
      instance_id: string;
      eval_script: string;
      parser: string;
    }>;
    expect(specs.length).toBe(rows.length);
    const mismatches: string[] = [];
    for (const spec of specs) {
      const fromRow = evalPlan(rowTasks.get(spec.instance_id)!);
      const fromTable = evalPlan(tasks.get(spec.instance_id)!);
      expect(fromRow.source).toBe('record-eval-script');
      const rowParts = steps(fromRow);
      const tableParts = steps(fromTable);
      if (!isDeepStrictEqual(rowParts, tableParts))
        mismatches.push(`${spec.instance_id}: ${JSON.stringify(rowParts)} vs ${JSON.stringify(tableParts)}`);
      // 5.x adds only the exit-code capture around its end marker; swe-env takes the exit code
      // from the test process itself.
      const expected = harnessEvalScript(fromRow, rowTasks.get(spec.instance_id)!).replace(
        ": '>>>>> End Test Output'\n",
        `SWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"\n`,
      );
      if (spec.eval_script !== expected) mismatches.push(`${spec.instance_id}: 5.x eval_script`);
      if (fromRow.harnessParser !== spec.parser) mismatches.push(`${spec.instance_id}: parser`);
    }
    expect(mismatches).toEqual([]);
  }, 120_000);
});
