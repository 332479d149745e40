import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { harnessEvalScript } from '../../src/reward/eval-plan/render.js';
import { isHarnessParser } from '../../src/languages/index.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

/**
 * Every eval-script shape the installed harness renders offline, read as SWE-bench 5.x rows (issue
 * 20): for each (repository, version) of swebench 4.1's MAP_REPO_VERSION_TO_SPECS, Python and the
 * seven other languages, plus issue 20's two Verified astropy rows (steps between the test patch and
 * the start marker). harness41_shapes.py cuts the harness's own eval_script_list into its parts; our
 * plan read from the joined script must have the same steps, in the same places, with nothing left
 * out unreported; the Python shape, written out again, is the row's script byte for byte. swebench
 * 5.0.2's make_test_spec accepts every row.
 */
interface Parts {
  eval_commands: string[];
  install: string;
  reset_files: string[];
  before_test_patch: string[];
  after_test_patch: string[];
  test_command: string;
}
interface Shape {
  row: Record<string, unknown> & { instance_id: string; repo: string; version: string; eval_script?: string; log_parser?: string };
  parts?: Parts;
  shape?: 'harness' | 'issue-20';
  language?: string;
  error?: string;
}

let shapes: Shape[];
let rendered: Shape[];
let tasks: Map<string, Task>;
let dir: string | undefined;

beforeAll(async () => {
  const env = await pythonEnv();
  shapes = (await runPythonJsonLines('test/conformance/harness41_shapes.py', [], { pythonPath: join(env, 'harness-4.1') })) as Shape[];
  rendered = shapes.filter((s) => s.parts);
  dir = await mkdtemp(join(tmpdir(), 'swe-env-shapes-'));
  const file = join(dir, 'rows.jsonl');
  // Every language's row loads with its own parser (issue 20); a name 4.1 gives that 5.x has no
  // parser for is left out, which the plan's steps do not depend on.
  const rows = rendered.map(({ row }) =>
    row.log_parser === undefined || isHarnessParser(row.log_parser) ? row : { ...row, log_parser: undefined },
  );
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  const loaded = await loadTaskFile(file);
  expect(loaded.problems).toEqual([]);
  tasks = new Map(loaded.tasks.map((t) => [t.id, t]));
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('5.x eval_script shapes against swebench 4.1 make_test_spec (every language)', () => {
  it('renders every (repository, version) of every language the harness can', () => {
    const languages = new Set(rendered.map((s) => s.language));
    expect(languages).toEqual(new Set(['py', 'js', 'go', 'java', 'rs', 'c', 'php', 'rb']));
    expect(rendered.length).toBeGreaterThanOrEqual(670);
    // Steps between the test patch and the start marker, in every language that has them.
    expect(rendered.filter((s) => s.parts!.after_test_patch.length > 0).length).toBeGreaterThanOrEqual(70);
    expect(rendered.filter((s) => s.parts!.before_test_patch.length > 0).length).toBeGreaterThanOrEqual(100);
    // The harness cannot render dbt-core (no test command): not a shape.
    expect(new Set(shapes.filter((s) => s.error).map((s) => s.row.repo))).toEqual(new Set(['dbt-labs/dbt-core']));
  });

  it("our plan from each row has the harness's steps, in place, and reports none left out", () => {
    const mismatches: string[] = [];
    for (const shape of rendered) {
      const task = tasks.get(shape.row.instance_id)!;
      const plan = evalPlan(task);
      const want = shape.parts!;
      const ours = {
        eval_commands: plan.evalCommands,
        install: plan.install,
        reset_files: plan.resetFiles,
        before_test_patch: plan.beforeTestPatch,
        after_test_patch: plan.afterTestPatch,
        test_command: plan.testCommand,
      };
      if (plan.source !== 'record-eval-script') mismatches.push(`${task.id}: source ${plan.source} (${plan.notes.join('; ')})`);
      expect.soft(ours, task.id).toEqual(want);
      if (plan.notes.length > 0) mismatches.push(`${task.id}: notes ${plan.notes.join('; ')}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('writes the Python shape out again byte for byte, steps after the test patch included', () => {
    const python = rendered.filter((s) => s.language === 'py');
    expect(python.filter((s) => s.shape === 'issue-20')).toHaveLength(2);
    const differ = python.filter(
      (s) => harnessEvalScript(evalPlan(tasks.get(s.row.instance_id)!), tasks.get(s.row.instance_id)!) !== s.row.eval_script,
    );
    expect(differ.map((s) => s.row.instance_id)).toEqual([]);
  });

  it("writes the other languages' shape out again byte for byte (swe-env plan), from the row's own parser", () => {
    const others = rendered.filter((s) => s.language !== 'py' && s.shape === 'harness');
    expect(others.length).toBeGreaterThan(100);
    const withParser = others.filter((s) => tasks.get(s.row.instance_id)!.logParser !== undefined);
    expect(withParser.length).toBe(others.length);
    const differ = others.filter(
      (s) => harnessEvalScript(evalPlan(tasks.get(s.row.instance_id)!), tasks.get(s.row.instance_id)!) !== s.row.eval_script,
    );
    expect(differ.map((s) => s.row.instance_id)).toEqual([]);
  });

  it('swebench 5.0.2 reads every row', async () => {
    const rows = rendered.map((s) => s.row);
    const specs = (await runPythonJsonLines('test/conformance/harness5_specs.py', rows)) as Array<{ instance_id: string }>;
    expect(specs.map((s) => s.instance_id)).toEqual(rows.map((r) => r.instance_id));
  }, 120_000);
});
