import type { LogParserName } from '../../tasks/repo-specs.js';
import type { TestStatus } from '../test-status.js';
import { parseDjangoLog } from './django.js';
import { parsePytestLog } from './pytest.js';
import { parseSympyLog } from './sympy.js';

/** SWE-bench's parse_log_pytest_options: a `[...]` option that is an absolute path keeps only its basename. */
export function shortenPathOption(name: string): string {
  const m = /^(.*?)\[(.*)\]$/.exec(name);
  if (!m) return name;
  const option = m[2]!;
  if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) return `${m[1]}[/${option.split('/').at(-1)}]`;
  return name;
}

/** SWE-bench's parse_log_pytest_v2 strips colour codes and control characters before reading. */
const CONTROL = /[\x01-\x08\x0b-\x1f]/g;

const PARSERS: Readonly<Record<LogParserName, (log: string) => Map<string, TestStatus>>> = Object.freeze({
  pytest: parsePytestLog,
  pytest_options: (log: string) => new Map([...parsePytestLog(log)].map(([name, status]) => [shortenPathOption(name), status] as const)),
  pytest_v2: (log: string) => parsePytestLog(log.replace(/\x1b?\[\d+m/g, '').replace(CONTROL, '')),
  django: parseDjangoLog,
  sympy: parseSympyLog,
});

export function parseTestLog(parser: LogParserName, log: string): Map<string, TestStatus> {
  return PARSERS[parser](log);
}
