import { SuiteStack } from './harness-parsers.js';
import {
  ansiEscape,
  indentOf,
  py,
  pyFindall,
  pyFindallOne,
  pyLines,
  pyMatch,
  pyRstrip,
  pySearch,
  pyStrip,
  pySub,
  versionOf,
  type HarnessSpec,
  type StatusMap,
} from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * More of the harness's single-repository JavaScript parsers (swebench 5.x harness/log_parsers/
 * javascript.py): alibaba-fusion/next (two formats by version), quarto-cli and p5.js.
 */

const ASSERTION_BLOCK = py('AssertionError:\\s+#([\\s\\S]*?)\\n\\n', { dotall: true });
const NEXT_FAIL = py('.*?✗\\s*(.*)');
const NEXT_PASS = py('.*?✓\\s*(.*)');
const NEXT_SKIPPED_PREFIXES = ['ERROR', 'LOG', 'WARN', 'Check', 'in'];

/**
 * next before 1.27: karma's output after each " xvfb-run " (from its last "Starting browser
 * Chrome"), colours and assertion blocks removed, up to "TOTAL". A line starting (once stripped)
 * with ERROR, LOG, WARN, Check or even "in" is skipped; the suites' stack lives across runs.
 */
function parseLogNextV1(log: string): StatusMap {
  const map: StatusMap = new Map();
  const suite = new SuiteStack();
  const text = pySub(ASSERTION_BLOCK, '', ansiEscape(log));
  for (const run of text.split(' xvfb-run ').slice(1)) {
    for (const line of pyLines(run.split('Starting browser Chrome').at(-1)!)) {
      if (line.startsWith('TOTAL')) break;
      const stripped = pyStrip(line);
      if (NEXT_SKIPPED_PREFIXES.some((p) => stripped.startsWith(p))) continue;
      const failed = pyMatch(NEXT_FAIL, line);
      const passed = failed ? null : pyMatch(NEXT_PASS, line);
      const found = failed ?? passed;
      if (found) map.set([...suite.names(), found[1]!].join(' - '), failed ? 'FAILED' : 'PASSED');
      else if (indentOf(line) > 0) suite.enter(line);
    }
  }
  return map;
}

const NEXT_SUITE = py('Running:(.*)\\)\\n{3}\\s{2}(.*)\\n');
const NEXT_V2_FAIL = py('^\\s{4}\\d+\\)\\s(.*)', { multiline: true });
const NEXT_V2_PASS = py('^\\s{4}✓\\s(.*)\\(', { multiline: true });

/** next 1.27: "Running: ...)" then the suite's title; its failures and passes until the next one. */
function parseLogNextV2(log: string): StatusMap {
  const map: StatusMap = new Map();
  const suites = [...log.matchAll(new RegExp(NEXT_SUITE.source, 'gu'))];
  suites.forEach((m, i) => {
    const body = log.slice(m.index + m[0].length, suites[i + 1]?.index ?? log.length);
    for (const failure of pyFindallOne(NEXT_V2_FAIL, body)) map.set(`${m[2]!}: ${pyStrip(failure)}`, 'FAILED');
    for (const success of pyFindallOne(NEXT_V2_PASS, body)) map.set(`${m[2]!}: ${pyStrip(success)}`, 'PASSED');
  });
  return map;
}

export function parseLogNext(log: string, spec: HarnessSpec): StatusMap {
  return versionOf(spec) === '1.27' ? parseLogNextV2(log) : parseLogNextV1(log);
}

const QUARTO_TEST = py('\\[(smoke|unit)\\]');
const QUARTO_TMP = [py('/tmp/(\\w+)\\.qmd'), py('/tmp/(\\w+)/')];
const QUARTO_STATUS: ReadonlyArray<readonly [RegExp, TestStatus]> = [
  [py('32mok'), 'PASSED'],
  [py('31mFAILED'), 'FAILED'],
];

/**
 * quarto-cli (deno test): lines with [smoke] or [unit] until "ERRORS" or "failures:", the name
 * before the first "...", temporary paths numbered by first sight (every such path on a line gets
 * the first one's number). A test line without a green ok or a red FAILED is a failure unless it
 * is a summary or INFO line, and a name seen before keeps its status.
 */
export function parseLogQuartoCli(log: string): StatusMap {
  const map: StatusMap = new Map();
  const tmpNumbers = new Map<string, number>();
  for (let line of pyLines(log)) {
    if (line.includes('ERRORS') || line.includes('failures:')) break;
    if (!pySearch(QUARTO_TEST, line)) continue;
    for (const pattern of QUARTO_TMP) {
      const m = pySearch(pattern, line);
      if (!m) continue;
      if (!tmpNumbers.has(m[0])) tmpNumbers.set(m[0], tmpNumbers.size);
      line = pySub(pattern, `/tmp/${tmpNumbers.get(m[0])!}`, line);
    }
    const name = pyStrip(line.split('...')[0]!);
    const rejected =
      line.startsWith('test result:') ||
      (line.includes('passed') && line.includes('failed') && line.includes('steps')) ||
      line.includes('34mINFO');
    const status = rejected ? undefined : QUARTO_STATUS.find(([p]) => pySearch(p, line));
    if (status) map.set(name, status[1]);
    if (!map.has(name) && !rejected) map.set(name, 'FAILED');
  }
  return map;
}

/** p5.js: lines that open or are JSON blocks go, as the harness's remove_json_blocks drops them. */
function withoutJsonBlocks(log: string): string {
  const kept: string[] = [];
  let inObject = false;
  let inList = false;
  for (const line of pyLines(log)) {
    const s = pyRstrip(line);
    if (s.endsWith('{')) inObject = true;
    else if (s.endsWith('[')) inList = true;
    else if (s === '}' && inObject) inObject = false;
    else if (s === ']' && inList) inList = false;
    else if (!inObject && !inList && !(s.startsWith('{') && s.endsWith('}')) && !(s.startsWith('[') && s.endsWith(']'))) kept.push(line);
  }
  return kept.join('\n');
}

const XML_BLOCK = py('<(\\w+)>[\\s\\S]*?<\\/\\1>', { multiline: true });

/** Each first `<tag>...</tag>` goes, leaving the `<tag>`s opened inside it, until none is left. */
function withoutXmlBlocks(log: string): string {
  let text = log;
  for (let m = pySearch(XML_BLOCK, text); m; m = pySearch(XML_BLOCK, text)) {
    const open = `<${m[1]!}>`;
    const opened = Math.max(m[0].split(open).length - 2, 0);
    text = text.slice(0, m.index) + open.repeat(opened) + text.slice(m.index + m[0].length);
  }
  return text;
}

const P5_FAIL = py('^\\s*(\\d+)\\)(.{0,1000}?):', { multiline: true, dotall: true });

/** A failure's title lines must each be indented deeper than the one before (the first deeper than 0). */
function isTitleTree(title: string): boolean {
  let last = 0;
  for (const line of title.split('\n')) {
    const indent = indentOf(line);
    if (indent <= last) return false;
    last = indent;
  }
  return true;
}

/** p5.js (mocha in a browser): failures only, "N) suite\n   title:" joined with ":". */
export function parseLogP5js(log: string): StatusMap {
  const map: StatusMap = new Map();
  const text = withoutXmlBlocks(withoutJsonBlocks(ansiEscape(log)));
  for (const found of pyFindall(P5_FAIL, text)) {
    const title = (found as string[])[1]!;
    if (isTitleTree(title)) map.set(title.split('\n').map(pyStrip).join(':'), 'FAILED');
  }
  return map;
}
