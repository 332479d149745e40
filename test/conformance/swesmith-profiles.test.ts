import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { SWE_SMITH_PROFILES, harnessParse } from '../../src/languages/index.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

/**
 * SWE-smith records graded as the swesmith package (PyPI) grades them: for every Python repository
 * profile, the test command of our plan equals its get_test_cmd for the same instance, and each of
 * its log parsers gives the same status maps as ours on every log shape.
 */
const LOGS = join(packageRoot(), 'test', 'fixtures', 'harness-logs');
const logs = readdirSync(LOGS, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map(({ name }) => ({ name, log: readFileSync(join(LOGS, name), 'utf8') }));
/** One profile per parser of theirs. */
const PARSER_PROFILES: Record<string, string> = {
  swesmith_pytest: 'mewwts__addict.75284f95',
  swesmith_paramiko: 'paramiko__paramiko.23f92003',
  swesmith_mypy: 'python__mypy.e93f06ce',
  swesmith_slugify: 'un33k__python-slugify.872b3750',
  swesmith_autograd: 'HIPS__autograd.ac044f0d',
  swesmith_tornado: 'tornadoweb__tornado.d5ac65c1',
};
const cases = Object.entries(PARSER_PROFILES).flatMap(([parser, profile]) => logs.map(({ name, log }) => ({ parser, profile, name, log })));

interface Command {
  repo_name: string;
  record: Record<string, unknown> & { instance_id: string };
  test_cmd: string;
}
let commands: Command[];
let maps: Array<{ map: Record<string, string> }>;

beforeAll(async () => {
  const env = await pythonEnv();
  const out = await runPythonJsonLines(
    'test/conformance/swesmith_profiles.py',
    cases.map(({ profile, log }) => ({ profile, log })),
    {
      pythonPath: join(env, 'harness-4.1'),
    },
  );
  commands = (out[0] as { commands: Command[] }).commands;
  maps = out.slice(1) as typeof maps;
}, 300_000);

describe('SWE-smith profiles against swesmith 0.0.9', () => {
  it('every Python profile of the package is in our table, and only those', () => {
    expect(commands.length).toBeGreaterThanOrEqual(130);
    expect(new Set(Object.keys(SWE_SMITH_PROFILES))).toEqual(new Set(commands.map((c) => c.repo_name)));
  });

  it('our plan gives the test command get_test_cmd gives, profile by profile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-smith-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'records.jsonl');
    await writeFile(file, commands.map((c) => JSON.stringify(c.record)).join('\n'));
    const { tasks, problems } = await loadTaskFile(file, { format: 'swe-smith' });
    expect(problems).toEqual([]);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const mismatches = commands
      .map((c) => ({ c, plan: evalPlan(byId.get(c.record.instance_id)!) }))
      .filter(({ c, plan }) => plan.source !== 'swe-smith' || plan.testCommand !== c.test_cmd)
      .map(({ c, plan }) => `${c.repo_name}: ours ${plan.testCommand} / theirs ${c.test_cmd}`);
    expect(mismatches).toEqual([]);
  });

  it(`its ${Object.keys(PARSER_PROFILES).length} log parsers agree with ours on ${logs.length} log shapes`, () => {
    expect(maps.length).toBe(cases.length);
    const mismatches: string[] = [];
    cases.forEach(({ parser, name, log }, i) => {
      const ours = Object.fromEntries(harnessParse(parser, log, '4.1'));
      if (JSON.stringify(Object.entries(ours).sort()) !== JSON.stringify(Object.entries(maps[i]!.map).sort())) {
        mismatches.push(`${parser} on ${name}: ours ${JSON.stringify(ours)} vs theirs ${JSON.stringify(maps[i]!.map)}`);
      }
    });
    expect(mismatches).toEqual([]);
  });
});
