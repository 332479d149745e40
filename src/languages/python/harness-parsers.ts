import type { HarnessGeneration } from '../language.js';
import type { StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The SWE-bench harness's Python log parsers, line for line in behaviour (swebench
 * harness/log_parsers/python.py; SWE-Gym's fork adds parse_log_pytest_pydantic). They are what the
 * official verdict is computed from, quirks included: ids cut at the first space (the last line of
 * several cut alike wins), `[100%]` read as a test name from wrapped progress lines, names printed
 * by a test's own output. Generation '5' is swebench 5.x (SKIPPED [N] summary lines dropped,
 * pytest_v2 keeps whole ids and drops a FAILED line's message); '4.1' is swebench 4.1 and the fork.
 * Checked side by side with the installed harness in test/conformance/harness-parsers.test.ts.
 */
type Parser = (log: string, generation: HarnessGeneration) => StatusMap;

/** Python's str.split() with no argument: runs of whitespace, no empty words. */
function words(line: string): string[] {
  return line.split(/[\s\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/).filter((w) => w !== '');
}

/** The harness's TestStatus enum: no XPASS (pytest's XPASS lines are not results to it). */
const HARNESS_STATUSES = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'] as const;

function startsWithStatus(line: string): boolean {
  return HARNESS_STATUSES.some((s) => line.startsWith(s));
}

function endsWithStatus(line: string): boolean {
  return HARNESS_STATUSES.some((s) => line.endsWith(s));
}

/** 5.x: pytest's `SKIPPED [N] path:line: reason` summary, where `[N]` is not a test. */
function isSkipSummary(generation: HarnessGeneration, status: string, name: string): boolean {
  return generation === '5' && status === 'SKIPPED' && /^\[\d+\]$/.test(name);
}

/** Python's "\n" split keeps a trailing "\r"; so do these parsers. */
function lines(log: string): string[] {
  return log.split('\n');
}

export function parseLogPytest(log: string, generation: HarnessGeneration, rename: (line: string) => string = (l) => l): StatusMap {
  const map: StatusMap = new Map();
  for (let line of lines(log)) {
    line = rename(line);
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const tc = words(line);
    if (tc.length <= 1) continue;
    if (isSkipSummary(generation, tc[0]!, tc[1]!)) continue;
    map.set(tc[1]!, tc[0] as TestStatus);
  }
  return map;
}

function parseLogPytestOptions(log: string, generation: HarnessGeneration): StatusMap {
  const map: StatusMap = new Map();
  for (let line of lines(log)) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const tc = words(line);
    if (tc.length <= 1) continue;
    if (isSkipSummary(generation, tc[0]!, tc[1]!)) continue;
    // re.search(r"(.*?)\[(.*)\]"): the first "[", the last "]" after it.
    const m = /^(.*?)\[(.*)\]/s.exec(tc[1]!);
    let name = tc[1]!;
    if (m) {
      let option = m[2]!;
      if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) option = `/${option.split('/').at(-1)!}`;
      name = `${m[1]!}[${option}]`;
    }
    map.set(name, tc[0] as TestStatus);
  }
  return map;
}

const CONTROL = /[\x01-\x1f]/g;

function parseLogPytestV2(log: string, generation: HarnessGeneration, pydantic = false): StatusMap {
  const map: StatusMap = new Map();
  for (let line of lines(log)) {
    line = line.replace(/\[(\d+)m/g, '').replace(CONTROL, '');
    if (pydantic) line = line.replace(/FAILED\s*\[.*?\]/g, 'FAILED');
    if (startsWithStatus(line)) {
      if (generation === '5' && !pydantic) {
        if (line.startsWith('FAILED')) line = line.split(' - ')[0]!;
        const tc = words(line);
        if (tc.length >= 2 && !isSkipSummary(generation, tc[0]!, tc[1]!)) map.set(tc.slice(1).join(' '), tc[0] as TestStatus);
      } else {
        if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
        const tc = words(line);
        if (tc.length >= 2) map.set(tc[1]!, tc[0] as TestStatus);
      }
    } else if (endsWithStatus(line)) {
      const tc = words(line);
      if (generation === '5' && !pydantic) {
        if (tc.length >= 2) map.set(tc.slice(0, -1).join(' '), tc.at(-1) as TestStatus);
      } else if (tc.length >= 2) {
        // 4.1 (and the fork) take the first two words: "name STATUS".
        map.set(tc[0]!, tc[1] as TestStatus);
      }
    }
  }
  return map;
}

function parseLogSeaborn(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of lines(log)) {
    const parts = words(line);
    if (parts.length < 2) continue;
    if (line.startsWith('FAILED')) map.set(parts[1]!, 'FAILED');
    else if (line.includes(' PASSED ')) {
      if (parts[1] === 'PASSED') map.set(parts[0]!, 'PASSED');
    } else if (line.startsWith('PASSED')) map.set(parts[1]!, 'PASSED');
  }
  return map;
}

function parseLogDjango(log: string): StatusMap {
  const map: StatusMap = new Map();
  let prev: string | undefined;
  for (const raw of lines(log)) {
    const line = raw.trim();
    if (line.includes('--version is equivalent to version')) map.set('--version is equivalent to version', 'PASSED');
    if (line.includes(' ... ')) prev = line.split(' ... ')[0];
    for (const suffix of [' ... ok', ' ... OK', ' ...  OK']) {
      if (!line.endsWith(suffix)) continue;
      let l = line;
      if (l.startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) l = l.split('...').slice(1).join('...').trim();
      map.set(rsplitFirst(l, suffix), 'PASSED');
      break;
    }
    if (line.includes(' ... skipped')) map.set(line.split(' ... skipped')[0]!, 'SKIPPED');
    if (line.endsWith(' ... FAIL')) map.set(line.split(' ... FAIL')[0]!, 'FAILED');
    if (line.startsWith('FAIL:')) map.set(words(line)[1]?.trim() ?? '', 'FAILED');
    if (line.endsWith(' ... ERROR')) map.set(line.split(' ... ERROR')[0]!, 'ERROR');
    if (line.startsWith('ERROR:')) map.set(words(line)[1]?.trim() ?? '', 'ERROR');
    if (line.trimStart().startsWith('ok') && prev !== undefined) map.set(prev, 'PASSED');
  }
  const patterns = [
    /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
    /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
    /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
  ];
  for (const pattern of patterns) for (const m of log.matchAll(pattern)) map.set(m[1]!, 'PASSED');
  return map;
}

/** Python's s.rsplit(sep, 1)[0]. */
function rsplitFirst(s: string, sep: string): string {
  const at = s.lastIndexOf(sep);
  return at < 0 ? s : s.slice(0, at);
}

function parseLogSympy(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const m of log.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) map.set(`${m[2]!}.py:${m[3]!}`, 'FAILED');
  for (const raw of lines(log)) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    if (line.endsWith(' E')) map.set(words(line)[0]!, 'ERROR');
    if (line.endsWith(' F')) map.set(words(line)[0]!, 'FAILED');
    if (line.endsWith(' ok')) map.set(words(line)[0]!, 'PASSED');
  }
  return map;
}

/**
 * SWE-smith's parsers (swesmith/profiles/python.py): PythonProfile.log_parser reads verbose pytest
 * lines (`id STATUS`); five profiles have their own. Its TestStatus is swebench 4.1's.
 */
function smithPytest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of lines(log)) {
    for (const status of HARNESS_STATUSES) {
      const m = new RegExp(`^(\\S+)(\\s+)${status}`).exec(line);
      if (m) map.set(m[1]!, status);
    }
  }
  return map;
}

function smithParamiko(log: string, prefix = ''): StatusMap {
  const map: StatusMap = new Map();
  for (const line of lines(log)) {
    for (const status of HARNESS_STATUSES) {
      const m = new RegExp(`^${prefix}${status}\\s(\\S+)`).exec(line);
      if (m) map.set(m[1]!, status);
    }
  }
  return map;
}

function smithMypy(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of lines(log)) {
    for (const status of ['PASSED', 'FAILED'] as const) {
      if (line.includes(status)) {
        const last = words(line).at(-1);
        if (last !== undefined) map.set(last, status);
        break;
      }
    }
  }
  return map;
}

function smithSlugify(log: string): StatusMap {
  const map: StatusMap = new Map();
  const name = "^([a-zA-Z0-9_\\-,\\.\\s\\(\\)']+)\\s\\.{3}\\s";
  for (const line of lines(log)) {
    const ok = new RegExp(`${name}ok$`).exec(line);
    if (ok) {
      map.set(ok[1]!, 'PASSED');
      continue;
    }
    for (const [keyword, status] of [
      ['FAIL', 'FAILED'],
      ['ERROR', 'ERROR'],
    ] as const) {
      const m = new RegExp(`${name}${keyword}$`).exec(line);
      if (m) map.set(m[1]!, status);
    }
  }
  return map;
}

function smithTornado(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of lines(log)) {
    if (line.endsWith('... ok')) map.set(line.split(' ... ')[0]!, 'PASSED');
    else if (line.includes(' ... skipped ')) map.set(line.split(' ... ')[0]!, 'SKIPPED');
    else if (line.startsWith('ERROR:') || line.startsWith('FAIL:')) map.set(words(line).slice(1, 3).join(' '), 'FAILED');
  }
  return map;
}

const matplotlibNames = (line: string): string => line.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');

export const HARNESS_PARSERS: Readonly<Record<string, Parser>> = Object.freeze({
  parse_log_pytest: (log, g) => parseLogPytest(log, g),
  parse_log_pytest_options: parseLogPytestOptions,
  parse_log_pytest_v2: (log, g) => parseLogPytestV2(log, g),
  parse_log_django: (log) => parseLogDjango(log),
  parse_log_seaborn: (log) => parseLogSeaborn(log),
  parse_log_sympy: (log) => parseLogSympy(log),
  parse_log_matplotlib: (log, g) => parseLogPytest(log, g, matplotlibNames),
  parse_log_pytest_pydantic: (log, g) => parseLogPytestV2(log, g, true),
  // The per-repository names the 5.x registry adds for the same functions.
  parse_log_astroid: (log, g) => parseLogPytest(log, g),
  parse_log_flask: (log, g) => parseLogPytest(log, g),
  parse_log_marshmallow: (log, g) => parseLogPytest(log, g),
  parse_log_pvlib: (log, g) => parseLogPytest(log, g),
  parse_log_pyvista: (log, g) => parseLogPytest(log, g),
  parse_log_sqlfluff: (log, g) => parseLogPytest(log, g),
  parse_log_xarray: (log, g) => parseLogPytest(log, g),
  parse_log_pydicom: parseLogPytestOptions,
  parse_log_requests: parseLogPytestOptions,
  parse_log_pylint: parseLogPytestOptions,
  parse_log_astropy: (log, g) => parseLogPytestV2(log, g),
  parse_log_scikit: (log, g) => parseLogPytestV2(log, g),
  parse_log_sphinx: (log, g) => parseLogPytestV2(log, g),
  swesmith_pytest: (log) => smithPytest(log),
  swesmith_paramiko: (log) => smithParamiko(log),
  swesmith_autograd: (log) => smithParamiko(log, '\\[gw\\d\\]\\s'),
  swesmith_mypy: (log) => smithMypy(log),
  swesmith_slugify: (log) => smithSlugify(log),
  swesmith_tornado: (log) => smithTornado(log),
});
