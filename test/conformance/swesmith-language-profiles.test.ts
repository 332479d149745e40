import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { SWE_SMITH_LANGUAGE_PROFILES, harnessParse } from '../../src/languages/index.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

/**
 * SWE-smith records of the repositories swesmith profiles beyond Python (Go, Rust, Java,
 * JavaScript, TypeScript, C, C++, C#, PHP) planned as the package (PyPI, 0.0.9) grades them: for
 * every such profile our plan's test command equals its get_test_cmd on the same instance, and our
 * port of its log_parser gives the same status map, or both raise. Each of our parsers reads every
 * fixture (the harness's real logs of every language, the Python ones, and swesmith-logs/, written
 * for the shapes only swesmith's parsers read) beside one profile that uses it; then every profile
 * reads the swesmith-logs/ fixtures beside the parser our table gives it, so a profile given the
 * wrong parser shows. One Python process answers all.
 */
const FIXTURES = join(packageRoot(), 'test', 'fixtures');

function logFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? logFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

const read = (dir: string) =>
  logFiles(join(FIXTURES, dir)).map((path) => ({ name: relative(FIXTURES, path), log: readFileSync(path, 'utf8') }));
const smithLogs = read('swesmith-logs');
const logs = [...read('harness-logs'), ...smithLogs];

const profiles = Object.entries(SWE_SMITH_LANGUAGE_PROFILES);
/** One profile per parser of ours: the first in the table that uses it. */
const representatives = new Map<string, string>();
for (const [name, { parser }] of profiles) if (!representatives.has(parser)) representatives.set(parser, name);
const parserCases = [...representatives].flatMap(([parser, profile]) => logs.map(({ name, log }) => ({ parser, profile, name, log })));

interface Answer {
  map?: Record<string, string>;
  error?: string;
}
interface Command {
  repo_name: string;
  module: string;
  record: Record<string, unknown> & { instance_id: string };
  test_cmd: string;
}
let commands: Command[];
let parserAnswers: Answer[];
let profileAnswers: Answer[][];

beforeAll(async () => {
  const env = await pythonEnv();
  const input = [
    ...parserCases.map(({ profile, log }) => ({ profile, log })),
    ...smithLogs.map(({ log }) => ({ profiles: profiles.map(([name]) => name), log })),
  ];
  const out = await runPythonJsonLines('test/conformance/swesmith_language_profiles.py', input, { pythonPath: join(env, 'harness-4.1') });
  commands = (out[0] as { profiles: Command[] }).profiles;
  parserAnswers = out.slice(1, 1 + parserCases.length) as Answer[];
  profileAnswers = (out.slice(1 + parserCases.length) as Array<{ maps: Answer[] }>).map((a) => a.maps);
}, 300_000);

function ours(parser: string, log: string): Answer {
  try {
    return { map: Object.fromEntries(harnessParse(parser, log, '4.1')) };
  } catch (e) {
    return { error: String(e) };
  }
}

/** '' when both agree: the same map, or both raise. */
function disagreement(mine: Answer, theirs: Answer | undefined): string {
  if (!theirs) return 'no answer from the package';
  if (mine.error !== undefined || theirs.error !== undefined) {
    return (mine.error === undefined) === (theirs.error === undefined)
      ? ''
      : `ours ${mine.error ?? 'parsed'} vs theirs ${theirs.error ?? 'parsed'}`;
  }
  const sorted = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort());
  return sorted(mine.map!) === sorted(theirs.map!) ? '' : `ours ${JSON.stringify(mine.map)} vs theirs ${JSON.stringify(theirs.map)}`;
}

describe('SWE-smith profiles beyond Python against swesmith 0.0.9', () => {
  it('every non-Python profile of the package is in our table, and only those', () => {
    expect(commands.length).toBeGreaterThanOrEqual(500);
    expect(new Set(profiles.map(([name]) => name))).toEqual(new Set(commands.map((c) => c.repo_name)));
    const languages = new Map(commands.map((c) => [c.repo_name, c.module.split('.').at(-1)!.replace('golang', 'go')]));
    expect(profiles.filter(([name, p]) => languages.get(name) !== p.language).map(([name]) => name)).toEqual([]);
  });

  it('our plan gives the test command get_test_cmd gives, profile by profile, and the profile parser', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-smith-langs-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'records.jsonl');
    await writeFile(file, commands.map((c) => JSON.stringify(c.record)).join('\n'));
    const { tasks, problems } = await loadTaskFile(file, { format: 'swe-smith' });
    expect(problems).toEqual([]);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const mismatches = commands
      .map((c) => ({ c, plan: evalPlan(byId.get(c.record.instance_id)!) }))
      .filter(
        ({ c, plan }) =>
          plan.source !== 'swe-smith' ||
          plan.testCommand !== c.test_cmd ||
          plan.harnessParser !== SWE_SMITH_LANGUAGE_PROFILES[c.repo_name]?.parser,
      )
      .map(({ c, plan }) => `${c.repo_name}: ours ${plan.testCommand} (${plan.harnessParser}) / theirs ${c.test_cmd}`);
    expect(mismatches).toEqual([]);
  });

  it(`our ${representatives.size} parsers agree with the package's on ${logs.length} logs`, () => {
    expect(parserAnswers.length).toBe(parserCases.length);
    const mismatches = parserCases
      .map(({ parser, profile, name, log }, i) => ({
        label: `${parser} (${profile}) on ${name}`,
        why: disagreement(ours(parser, log), parserAnswers[i]),
      }))
      .filter(({ why }) => why !== '')
      .map(({ label, why }) => `${label}: ${why}`);
    expect(mismatches).toEqual([]);
  });

  it(`every profile's log_parser agrees with the parser our table gives it on ${smithLogs.length} logs`, () => {
    expect(profileAnswers.length).toBe(smithLogs.length);
    const mismatches: string[] = [];
    smithLogs.forEach(({ name, log }, i) => {
      const mine = new Map<string, Answer>();
      profiles.forEach(([profile, { parser }], j) => {
        if (!mine.has(parser)) mine.set(parser, ours(parser, log));
        const why = disagreement(mine.get(parser)!, profileAnswers[i]![j]);
        if (why !== '') mismatches.push(`${profile} (${parser}) on ${name}: ${why}`);
      });
    });
    expect(mismatches).toEqual([]);
  });

  it('the swesmith-logs/ fixtures tell every two of our parsers apart (so a profile given the wrong one shows)', () => {
    const readings = [...representatives.keys()].map((parser) => ({
      parser,
      maps: smithLogs.map(({ log }) => JSON.stringify(ours(parser, log))),
    }));
    const alike = readings.flatMap((a, i) =>
      readings
        .slice(i + 1)
        .filter((b) => b.maps.every((m, k) => m === a.maps[k]))
        .map((b) => `${a.parser} = ${b.parser}`),
    );
    expect(alike).toEqual([]);
  });

  it('the fixtures exercise every parser: each reads some test from at least one log', () => {
    const reading = new Set(parserCases.filter((_, i) => Object.keys(parserAnswers[i]?.map ?? {}).length > 0).map(({ parser }) => parser));
    expect([...representatives.keys()].filter((p) => !reading.has(p) && p !== 'swesmith_qunit')).toEqual([]);
  });
});
