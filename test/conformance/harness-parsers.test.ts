import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { HARNESS_PARSERS, harnessParse, isSmithParser, type HarnessGeneration } from '../../src/languages/index.js';
import { harnessVerdict } from '../../src/reward/harness/verdict.js';
import { pythonEnv, runPythonJsonLines } from '../helpers/python-env.js';

/**
 * The harness's log parsers, ours in TypeScript beside the installed harness's own (swebench 4.1
 * and 5.0.2): every parser on every log shape (pytest -rA summaries with cut parametrised ids and
 * " - " messages, wrapped progress lines giving `[100%]`, an inner pytest's output captured by a
 * test, ANSI colours and the old "name STATUS" form, path options, matplotlib's mouse buttons,
 * seaborn, django, sympy) gives the same status map. The fork's pydantic parser is not on PyPI.
 */
const LOGS = join(packageRoot(), 'test', 'fixtures', 'harness-logs');
const logs = readdirSync(LOGS, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map(({ name }) => name)
  .map((name) => ({ name, log: readFileSync(join(LOGS, name), 'utf8') }));
const parsers = Object.keys(HARNESS_PARSERS).filter((p) => p !== 'parse_log_pytest_pydantic' && !isSmithParser(p));
const cases = logs.flatMap(({ name, log }) => parsers.map((parser) => ({ name, parser, log })));

const official = new Map<HarnessGeneration, Array<{ map?: Record<string, string>; error?: string }>>();

beforeAll(async () => {
  const env = await pythonEnv();
  const input = cases.map(({ parser, log }) => ({ parser, log }));
  official.set(
    '4.1',
    (await runPythonJsonLines('test/conformance/harness_parse.py', input, { pythonPath: join(env, 'harness-4.1') })) as never,
  );
  official.set('5', (await runPythonJsonLines('test/conformance/harness_parse.py', input)) as never);
}, 300_000);

describe.each(['4.1', '5'] as const)('harness %s parsers', (generation) => {
  it(`agree with the installed harness on ${logs.length} log shapes x ${parsers.length} parsers`, () => {
    const results = official.get(generation)!;
    expect(results.length).toBe(cases.length);
    const mismatches: string[] = [];
    cases.forEach(({ name, parser, log }, i) => {
      const theirs = results[i]!;
      if (theirs.error) {
        mismatches.push(`${parser} on ${name}: the harness's parser failed (${theirs.error})`);
        return;
      }
      const ours = Object.fromEntries(harnessParse(parser, log, generation));
      try {
        expect(ours).toEqual(theirs.map);
      } catch {
        mismatches.push(`${parser} on ${name}: ours ${JSON.stringify(ours)} vs harness ${JSON.stringify(theirs.map)}`);
      }
    });
    expect(mismatches).toEqual([]);
  });
});

describe('harness quirks our verdict does not share', () => {
  it('a name cut at a space: 4.1 reads the last line cut alike, 5.x prefix-matches when the ids agree', () => {
    const log = readFileSync(join(LOGS, 'pytest-ra.txt'), 'utf8');
    const lists = { passToPass: [], exitCode: 1, timedOut: false };
    for (const generation of ['4.1', '5'] as const) {
      const map = harnessParse('parse_log_pytest', log, generation);
      // "PASSED t[a b]", "PASSED t[a c]", "XFAIL t[a d]" all become "t[a": the last line wins.
      expect(map.get('tests/test_core.py::test_param[a')).toBe('XFAIL');
      const verdict = harnessVerdict({ map, log, failToPass: ['tests/test_core.py::test_param[a'], ...lists, generation });
      expect(verdict.resolved).toBe(true); // XFAIL counts as passing for the harness
    }
    // pytest_v2 (5.x) keeps whole ids: the cut name resolves by prefix, the three agree on passing.
    const v2 = harnessParse('parse_log_pytest_v2', log, '5');
    expect(v2.get('tests/test_core.py::test_param[a b]')).toBe('PASSED');
    const verdict = harnessVerdict({ map: v2, log, failToPass: ['tests/test_core.py::test_param[a'], ...lists, generation: '5' });
    expect(verdict.failToPass.success).toEqual(['tests/test_core.py::test_param[a']);
    expect(harnessVerdict({ map: v2, log, failToPass: ['tests/test_core.py::test_param[a'], ...lists, generation: '4.1' }).resolved).toBe(
      false,
    );
  });

  it('`[100%]` from a wrapped progress line is a test name to the harness', () => {
    const log = readFileSync(join(LOGS, 'wrapped-progress.txt'), 'utf8');
    expect(harnessParse('parse_log_pytest', log, '5').get('[100%]')).toBe('PASSED');
  });

  it('a skipped PASS_TO_PASS test: ignored by 4.1, maintained for 5.x; a skipped FAIL_TO_PASS test fails for 5.x', () => {
    const map = new Map([
      ['t::a', 'PASSED' as const],
      ['t::s', 'SKIPPED' as const],
    ]);
    const base = { map, log: '1 passed', exitCode: 0, timedOut: false };
    expect(harnessVerdict({ ...base, failToPass: ['t::a'], passToPass: ['t::s'], generation: '4.1' }).passToPass).toEqual({
      success: [],
      failure: [],
    });
    expect(harnessVerdict({ ...base, failToPass: ['t::a'], passToPass: ['t::s'], generation: '5' }).passToPass.success).toEqual(['t::s']);
    expect(harnessVerdict({ ...base, failToPass: ['t::s'], passToPass: [], generation: '5' }).resolved).toBe(false);
    expect(harnessVerdict({ ...base, failToPass: ['t::s'], passToPass: [], generation: '4.1' }).resolved).toBe(true); // 0/0 counts as 1
  });
});
