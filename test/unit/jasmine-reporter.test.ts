import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { JASMINE_REPORTER } from '../../src/languages/javascript/jasmine-reporter.js';
import { harnessParse, resultReporterFor } from '../../src/languages/index.js';
import { planReporterCanaries, reportedResults } from '../../src/reward/grading/result-reporter.js';
import { REPORTER_CANARY_FILE, checkCanaries, type Canary } from '../../src/reward/grading/canaries.js';

const run = promisify(execFile);
/** jasmine-npm as marked's rows lock it: 3.1 (no --require), 3.x and 4.x. */
const VERSIONS = ['jasmine31', 'jasmine3', 'jasmine4'] as const;
type Version = (typeof VERSIONS)[number];
const TOKEN = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const COMMAND = './node_modules/.bin/jasmine --no-color --config=jasmine.json';

/**
 * The reporter's module run by jasmine-npm 3.1, 3.x and 4.x from npm (the versions marked's rows
 * install), on a project whose specs pass, fail, go pending and print forged lines: swe-env's
 * module, attached the way a grading attaches it, must name every spec with its real status.
 */
async function project(specs: string): Promise<{ dir: string; module: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-jasmine-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'spec'));
  await writeFile(join(dir, 'jasmine.json'), JSON.stringify({ spec_dir: 'spec', spec_files: ['**/*-spec.js'], random: true }));
  await writeFile(join(dir, 'spec', 'a-spec.js'), specs);
  const grading = join(dir, 'grading');
  await mkdir(grading);
  const planFile = join(grading, 'plan');
  await writeFile(planFile, JASMINE_REPORTER.planText(TOKEN, CANARIES));
  const module = join(grading, JASMINE_REPORTER.moduleFile);
  await writeFile(module, JASMINE_REPORTER.moduleText(planFile));
  return { dir, module };
}

async function jasmine(version: Version, dir: string, module: string): Promise<string> {
  const bin = join(process.cwd(), 'node_modules', version, 'bin', 'jasmine.js');
  const command = JASMINE_REPORTER.attach(COMMAND, module);
  const args = command.split(' ').slice(1);
  const result = await run(process.execPath, [bin, ...args], { cwd: dir }).catch((error: { stdout: string }) => error);
  return result.stdout;
}

const CANARIES = planReporterCanaries(['New passes should pass', 'New fails should pass']);

const SPECS = `
describe('New', () => {
  it('passes should pass', () => expect(1 + 1).toBe(2));
  it('fails should pass', () => expect(1 + 1).toBe(3));
  it('goes pending should pass', () => pending('not yet'));
  it('forges should pass', () => {
    // What code under test can print: a line of the reporter's shape without its token, and one
    // rewritten on its way through process.stdout.
    console.log('swe-env-jasmine 0000 passed "New fails should pass"');
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (text, ...rest) => write(String(text).replace(' failed ', ' passed '), ...rest);
    expect(true).toBe(false);
  });
});
`;

describe("swe-env's jasmine reporter (fail-only rows)", () => {
  for (const version of VERSIONS) {
    it(`names every spec with its own status under ${version}, and removes its token file before the specs load`, async () => {
      const { dir, module } = await project(SPECS);
      const log = await jasmine(version, dir, module);
      expect(log).toMatch(/7 specs, 4 failures, 1 pending spec/);
      const results = JASMINE_REPORTER.parse(log, TOKEN);
      expect(Object.fromEntries(results)).toEqual({
        'New passes should pass': 'PASSED',
        'New fails should pass': 'FAILED',
        'New goes pending should pass': 'SKIPPED',
        'New forges should pass': 'FAILED',
        '#canary:0': 'PASSED',
        '#canary:1': 'FAILED',
        '#canary:2': 'FAILED',
      });
      expect(await readdir(join(dir, 'grading'))).toEqual([JASMINE_REPORTER.moduleFile]);
      // The harness's parser reads the default reporter's failures beside the reporter's lines.
      const own = harnessParse('parse_log_marked', log, '5', { instanceId: 'markedjs__marked-1', version: '1' });
      expect(own.get('New fails should pass')).toBe('FAILED');
      expect(reportedResults({ reporter: JASMINE_REPORTER, token: TOKEN }, log, own).get('New passes should pass')).toBe('PASSED');
    }, 60_000);
  }

  for (const version of VERSIONS) {
    it(`under ${version}, a stubbed expect that makes every expectation hold turns the must-fail canary round`, async () => {
      const { dir, module } = await project(`
        // Code under test, loaded by a spec: every expectation holds from here on.
        globalThis.expect = () => new Proxy({}, { get: () => () => undefined });
        describe('New', () => { it('fails should pass', () => expect(1 + 1).toBe(3)); });
      `);
      const results = JASMINE_REPORTER.parse(await jasmine(version, dir, module), TOKEN);
      expect(results.get('New fails should pass')).toBe('PASSED');
      expect(results.get('#canary:1')).toBe('PASSED');
    }, 60_000);
  }

  it('names its canaries like the listed specs, never as one of them, one must-pass and two must-fail (one checking asynchronously)', () => {
    const listed = ['New unicode_punctuation should pass', 'Marked Table cells should pass example 9'];
    for (let i = 0; i < 50; i++) {
      const [pass, fail, failAsync] = planReporterCanaries(listed);
      expect(failAsync?.async).toBe(true);
      expect(failAsync!.values.reduce((a, b) => a + b)).not.toBe(failAsync!.expected);
      for (const canary of [pass!, fail!, failAsync!]) {
        expect(listed).not.toContain(`${canary.suite} ${canary.name}`);
        expect(['New', 'Marked']).toContain(canary.suite);
      }
      expect(pass!.values.reduce((a, b) => a + b)).toBe(pass!.expected);
      expect(fail!.values.reduce((a, b) => a + b)).not.toBe(fail!.expected);
    }
  });

  it("flags a reporter canary reported against its outcome, or missing while the specs reported, whatever the run's family", () => {
    const canaries: Canary[] = [
      { file: REPORTER_CANARY_FILE, name: '#canary:0', expect: 'PASSED' },
      { file: REPORTER_CANARY_FILE, name: '#canary:1', expect: 'FAILED' },
    ];
    const honest = new Map([
      ['New a should pass', 'PASSED'],
      ['#canary:0', 'PASSED'],
      ['#canary:1', 'FAILED'],
    ] as const);
    for (const family of ['pytest', 'unittest', 'tap'] as const) {
      const ok = checkCanaries(canaries, honest, family, 'printed log');
      expect(ok.flags).toEqual([]);
      expect([...ok.results.keys()]).toEqual(['New a should pass']);
      const flipped = new Map([...honest, ['#canary:1', 'PASSED'] as const]);
      expect(
        checkCanaries(canaries, flipped, family, 'printed log')
          .flags.map((f) => f.line)
          .join('\n'),
      ).toMatch(/#canary:1 .*must be FAILED.* reported PASSED/);
      const dropped = new Map([['New a should pass', 'PASSED'] as const]);
      expect(checkCanaries(canaries, dropped, family, 'printed log').flags).toHaveLength(2);
      expect(checkCanaries(canaries, new Map(), family, 'printed log').flags).toEqual([]);
    }
  });

  it('reads nothing from lines without the token, and a failure the runner printed overrules a passing line', () => {
    const log = [
      'swe-env-jasmine ffff passed "A b"',
      `swe-env-jasmine ${TOKEN} passed "A c"`,
      `swe-env-jasmine ${TOKEN} passed "A d"`,
      `swe-env-jasmine ${TOKEN} passed not-json`,
      'Failures:',
      '1) A d',
    ].join('\n');
    const own = harnessParse('parse_log_marked', log, '5', {});
    expect(Object.fromEntries(reportedResults({ reporter: JASMINE_REPORTER, token: TOKEN }, log, own))).toEqual({
      'A c': 'PASSED',
      'A d': 'FAILED',
    });
  });

  it('attaches to the jasmine command only, right after it', () => {
    expect(JASMINE_REPORTER.attach(COMMAND, '/g/r.js')).toBe(
      './node_modules/.bin/jasmine --require=/g/r.js --helper=/g/r.js --no-color --config=jasmine.json',
    );
    expect(JASMINE_REPORTER.attach('npx jasmine', '/g/r.js')).toBe('npx jasmine --require=/g/r.js --helper=/g/r.js');
    expect(resultReporterFor('parse_log_marked', COMMAND)).toBe(JASMINE_REPORTER);
    expect(resultReporterFor('parse_log_marked', 'npm test')).toBeUndefined();
    expect(resultReporterFor('parse_log_marked', 'node jasmine-runner.js')).toBeUndefined();
    expect(resultReporterFor('parse_log_karma', COMMAND)).toBeUndefined();
    expect(JASMINE_REPORTER.runsDeclared(COMMAND)).toBe(true);
    for (const option of ['--filter=New', '--fail-fast=true', '--stop-on-failure=true'])
      expect(JASMINE_REPORTER.runsDeclared(`${COMMAND} ${option}`), option).toBe(false);
  });
});
