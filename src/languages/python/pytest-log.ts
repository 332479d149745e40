import { TEST_STATUSES, type TestStatus } from '../shared/test-status.js';

/**
 * Reads `pytest -rA` output. Only the last "short test summary info" section counts, so lines a
 * test prints into its captured output (e.g. a fake "PASSED tests/x.py::t") are not taken as
 * results. Ids are kept whole: parametrised ids with spaces ("t[a b]") are not cut at the first
 * space as SWE-bench's parse_log_pytest does. When a log has no summary section (pytest killed),
 * the verbose "path::name STATUS" lines are read instead.
 */
export function parsePytestLog(log: string): Map<string, TestStatus> {
  const lines = log.split(/\r?\n/).map(stripAnsi);
  const summaryStart = findLastIndex(lines, (l) => /^=+ short test summary info =+$/.test(l.trim()));
  const results = new Map<string, TestStatus>();
  if (summaryStart >= 0) {
    for (const line of lines.slice(summaryStart + 1)) {
      if (/^=+ .* =+$/.test(line.trim())) break; // the final "N passed in Xs" line ends the section
      const parsed = parseSummaryLine(line);
      if (parsed) results.set(parsed.name, parsed.status);
    }
    return results;
  }
  for (const line of lines) {
    const parsed = parseVerboseLine(line);
    if (parsed) results.set(parsed.name, parsed.status);
  }
  return results;
}

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

function stripAnsi(line: string): string {
  return line.replace(ANSI, '');
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}

/** `STATUS name[ - message]`; SKIPPED lines ("SKIPPED [1] file:line: reason") name no test. */
export function parseSummaryLine(line: string): { name: string; status: TestStatus } | undefined {
  const space = line.indexOf(' ');
  if (space < 0) return undefined;
  const word = line.slice(0, space) as TestStatus;
  if (!TEST_STATUSES.includes(word)) return undefined;
  const rest = line.slice(space + 1);
  if (word === 'SKIPPED' && rest.startsWith('[')) return undefined;
  const name = testIdPrefix(rest);
  if (!name.includes('::') && !name.endsWith('.py')) return undefined;
  return { name, status: word };
}

/** `path::name STATUS [ 42%]` lines of `pytest -v`. */
function parseVerboseLine(line: string): { name: string; status: TestStatus } | undefined {
  const match = /^(\S.*::.+?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?:\s+\[\s*\d+%\])?\s*$/.exec(line);
  if (!match) return undefined;
  return { name: match[1]!, status: match[2] as TestStatus };
}

/** The test id at the start of `rest`: up to " - " (the message) outside of [...] parameters. */
function testIdPrefix(rest: string): string {
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i];
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && rest.startsWith(' - ', i)) return rest.slice(0, i);
  }
  return rest.trimEnd();
}
