import { SuiteStack } from './harness-parsers.js';
import {
  afterFirstOrAll,
  ansiEscape,
  beforeLastOrAll,
  indentOf,
  py,
  pyFindall,
  pyFindallOne,
  pyLines,
  pyMatch,
  pySplit,
  pyStrip,
  pySub,
  versionOf,
  type HarnessSpec,
  type StatusMap,
} from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * The harness's parsers for single JavaScript repositories (swebench 5.x harness/log_parsers/
 * javascript.py), each reading its repository's own runner output: mostly failures only (a test
 * absent from the map is one the harness does not see fail), and JSON reporters cut out of the log.
 */

const SPACES = py('\\s+');
const squash = (s: string): string => pyStrip(pySub(SPACES, ' ', s));

/** Failures of several patterns; a two-group pattern's name is its second group. */
function failuresOf(log: string, patterns: readonly RegExp[], clean: (s: string) => string = (s) => s): StatusMap {
  const map: StatusMap = new Map();
  for (const pattern of patterns) {
    for (const found of pyFindall(pattern, log)) map.set(clean(typeof found === 'string' ? found : found[1]!), 'FAILED');
  }
  return map;
}

const PRISM_COMMAND = './node_modules/.bin/mocha tests/run.js --reporter json';

/** PrismJS: after each mocha command, the text from its first "{" to its last "}" is mocha's JSON report. */
export function parseLogPrismjs(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const chunk of log.split(PRISM_COMMAND).slice(1)) {
    const report = JSON.parse(`{${beforeLastOrAll(afterFirstOrAll(chunk, '{'), '}')}}`) as Record<string, unknown>;
    for (const test of pyIterate(pyItem(report, 'failures'))) map.set(titleOf(pyItem(test, 'fullTitle')), 'FAILED');
    for (const test of pyIterate(pyItem(report, 'passes'))) map.set(titleOf(pyItem(test, 'fullTitle')), 'PASSED');
  }
  return map;
}

/** value[key] as Python does it on parsed JSON: a dict's key, else KeyError or TypeError. */
function pyItem(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key))
    return (value as Record<string, unknown>)[key];
  throw new Error(`KeyError or TypeError: no ${JSON.stringify(key)} in the report`);
}

/** Python's iteration of parsed JSON: a list's items, a dict's keys, a string's characters. */
function pyIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (typeof value === 'object' && value !== null) return Object.keys(value);
  throw new Error('TypeError: the report is not iterable');
}

/** A dict key from JSON: a string as is; the harness's json.dumps writes scalars as JSON text. */
function titleOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) throw new Error('TypeError: unhashable type');
  return JSON.stringify(value);
}

/** ESLint: "  N) title ... SomethingError", the title's whitespace squashed. */
export function parseLogEslint(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const found of pyFindall(py('(\\s{2}\\d+\\))([\\s\\S]*?)\\s+(?:(.*)Error)'), log))
    map.set(squash((found as string[])[1]!), 'FAILED');
  return map;
}

/** bpmn-js: karma's "<browser> <title> FAILED" lines for PhantomJS and Chrome. */
export const parseLogBpmnJs = (log: string): StatusMap =>
  failuresOf(log, [
    py('2KPhantomJS\\s[\\d\\.]+\\s\\(Linux\\s[\\d\\.]+\\)\\s(.*)FAILED\\n'),
    py('2KPhantomJS\\s[\\d\\.]+\\s\\(Linux\\sx86\\_64\\)\\s(.*)FAILED\\n'),
    py('Chrome\\sHeadless\\s(.*)\\s\\(Linux\\sx86\\_64\\)\\s(.*)FAILED\\n'),
    py('HeadlessChrome\\s[\\d\\.]+\\s\\(Linux\\s[\\d\\.]+\\)\\s(.*)FAILED\\n'),
  ]);

/** OpenLayers: karma's Chrome failures, mocha's numbered ones up to "Error:", rendering cases' mismatches. */
export const parseLogOpenlayers = (log: string): StatusMap =>
  failuresOf(
    log,
    [
      py('Chrome\\sHeadless\\s[\\d\\.]+\\s\\(Linux\\s[\\d\\.\\_\\S]+\\)\\s(.*)\\sFAILED\\n', { multiline: true }),
      py('Chrome\\s[\\d\\.]+\\s\\(Linux\\s[\\d\\.\\_\\S]+\\)\\s(.*)FAILED\\n', { multiline: true }),
      py('^\\s{2}\\d+\\)([\\s\\S]*?)Error:', { multiline: true }),
      py('^case\\s(.*):\\smismatch', { multiline: true }),
    ],
    squash,
  );

/** Chart.js: karma's Chrome failures once colours are removed. */
export const parseLogChartJs = (log: string): StatusMap =>
  failuresOf(ansiEscape(log), [py('Chrome\\s[\\d\\.]+[^\\S\\r\\n]\\(.+?\\)[^\\S\\r\\n](.*)FAILED$', { multiline: true })]);

/** plotly.js (its MAP_REPO_TO_PARSER_JS entry; the 5.x registry has no name for it). */
export function parsePlotlyJs(log: string): StatusMap {
  const map: StatusMap = new Map();
  const suitePattern = py('(\\s+)-\\s+(.*?)\\s+:');
  const testPattern = py('(\\s+)\\*\\s+(.*?)\\s+:\\s*(.*)');
  let suites: string[] = [];
  let level = 0;
  // The level is that of the last suite pushed and does not fall while popping: a line at or
  // under it empties the whole stack.
  const popTo = (spaces: number): void => {
    while (suites.length > 0 && spaces <= level) suites.pop();
  };
  for (const line of pyLines(log)) {
    const suite = pyMatch(suitePattern, line);
    if (suite) {
      popTo(suite[1]!.length);
      suites = [...suites, suite[2]!];
      level = suite[1]!.length;
      continue;
    }
    const test = pyMatch(testPattern, line);
    if (!test) continue;
    popTo(test[1]!.length);
    const status = test[3]!.toLowerCase();
    map.set([...suites, test[2]!].join('.'), !status.includes('ok') || status.includes('failed') ? 'FAILED' : 'PASSED');
  }
  return map;
}

/** emotion (MAP_REPO_TO_PARSER_JS only): jest's "PASS file" / "FAIL file" lines. */
export function parseLogEmotion(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const name of pyFindallOne(py('^FAIL\\s(.*)', { multiline: true }), log)) map.set(pyStrip(name), 'FAILED');
  for (const name of pyFindallOne(py('^PASS\\s(.*)', { multiline: true }), log)) map.set(pyStrip(name), 'PASSED');
  return map;
}

const GROMMET_TIMING = py('\\s\\([\\d\\.]+\\s?(?:ms|s)\\)$');

/** grommet: jest's file lines, a trailing "(1.2 s)" removed. */
export function parseLogGrommet(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const name of pyFindallOne(py('^FAIL\\s(.*)', { multiline: true }), log))
    map.set(pySub(GROMMET_TIMING, '', pyStrip(name)), 'FAILED');
  for (const name of pyFindallOne(py('^PASS\\s(.*)', { multiline: true }), log))
    map.set(pySub(GROMMET_TIMING, '', pyStrip(name)), 'PASSED');
  return map;
}

const CARBON_PATTERNS: ReadonlyArray<readonly [RegExp, TestStatus]> = (['PASS', 'FAIL'] as const).flatMap((word) =>
  ['\\s\\([\\d\\.]+ms\\)', '\\s\\([\\d\\.]+\\ss\\)', '\\s\\([\\d\\.]+s\\)', ''].map(
    (timing) => [py(`^${word}\\s(.*)${timing}`), word === 'PASS' ? 'PASSED' : 'FAILED'] as const,
  ),
);

/** carbon, react-pdf (and scratch-gui, prettier, lighthouse's jest): jest's file lines, the last timing cut. */
export function parseLogCarbon(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of pyLines(log)) {
    for (const [pattern, status] of CARBON_PATTERNS) {
      const m = pyMatch(pattern, line);
      if (m) {
        map.set(m[1]!, status);
        break;
      }
    }
  }
  return map;
}

/** cypress (MAP_REPO_TO_PARSER_JS only): mocha JSON reports, each before a "../.." path. */
export function parseLogCypress(log: string): StatusMap {
  const map: StatusMap = new Map();
  const title = py('"fullTitle":\\s"(.*)",\\n');
  for (const chunk of log.split('../..').slice(0, -1)) {
    for (const t of pyFindallOne(title, beforeLastOrAll(afterFirstOrAll(chunk, '  "passes": ['), '  }'))) map.set(t, 'PASSED');
    for (const t of pyFindallOne(title, beforeLastOrAll(afterFirstOrAll(chunk, '  "failures": ['), '  ],'))) map.set(t, 'FAILED');
  }
  return map;
}

const LIGHTHOUSE_MOCHA: ReadonlyArray<readonly [RegExp, TestStatus]> = [
  [py('✔\\s(.*)\\s\\(\\d+m+s\\)'), 'PASSED'],
  [py('✔\\s(.*)'), 'PASSED'],
  [py('\\d+\\)\\s(.*)\\s\\(\\d+m+s\\)'), 'FAILED'],
  [py('\\d+\\)\\s(.*)'), 'FAILED'],
];

/** lighthouse 9.5 to 10.2: mocha's spec output after each "running N test files", suites by indent. */
function parseLogLighthouseMocha(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const run of pySplit(py('running\\s\\d+\\stest\\sfiles'), log).slice(1)) {
    const suite = new SuiteStack();
    for (const line of pyLines(pyStrip(pySplit(py('\\d+\\spassing'), run)[0]!))) {
      const found = LIGHTHOUSE_MOCHA.map(([p, status]) => [pyMatch(p, pyStrip(line)), status] as const).find(([m]) => m !== null);
      if (found) map.set([...suite.names(), found[0]![1]!].join(' - '), found[1]);
      else if (indentOf(line) > 0) suite.enter(line);
    }
  }
  return map;
}

const LIGHTHOUSE_MOCHA_VERSIONS = ['9.5', '10.0', '10.2'];

/** lighthouse by version: mocha's spec output, jest's (3 and later), or mocha's JSON before 3. */
export function parseLogLighthouse(log: string, spec: HarnessSpec): StatusMap {
  const version = versionOf(spec);
  if (LIGHTHOUSE_MOCHA_VERSIONS.includes(version)) return parseLogLighthouseMocha(log);
  if (pyFloat(version) >= 3) return parseLogCarbon(log);
  const map: StatusMap = new Map();
  const title = py('"fullTitle":\\s"(.*)",\\n');
  for (const chunk of log.split('./node_modules/.bin/mocha --reporter json').slice(1)) {
    for (const t of pyFindallOne(title, beforeLastOrAll(afterFirstOrAll(chunk, '"passes": ['), ']'))) map.set(t, 'PASSED');
    for (const t of pyFindallOne(title, beforeLastOrAll(afterFirstOrAll(chunk, '"failures": ['), '],'))) map.set(t, 'FAILED');
  }
  return map;
}

/** Python's float() of a version string (ASCII forms only): surrounding space, "_" between digits, inf, nan. */
function pyFloat(text: string): number {
  const s = pyStrip(text);
  const digits = '\\d(?:_?\\d)*';
  if (new RegExp(`^[+-]?(?:(?:${digits})?\\.${digits}|${digits}\\.?)(?:[eE][+-]?${digits})?$`).test(s))
    return Number(s.replaceAll('_', ''));
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  throw new Error(`ValueError: could not convert string to float: '${text}'`);
}

export { parseLogNext, parseLogQuartoCli, parseLogP5js } from './harness-repos-more.js';
