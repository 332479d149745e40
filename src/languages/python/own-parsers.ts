import type { TestStatus } from '../shared/test-status.js';
import { parseDjangoLog } from './django-log.js';
import { parsePytestLog } from './pytest-log.js';
import { parseSympyLog } from './sympy-log.js';

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

/** swe-env's own readings of a log (summary sections, whole ids), one per family of harness parsers. */
export type LogParserName = 'pytest' | 'pytest_options' | 'pytest_v2' | 'pytest_matplotlib' | 'django' | 'sympy';

const HARNESS_FAMILY: Readonly<Record<string, LogParserName>> = {
  parse_log_django: 'django',
  parse_log_sympy: 'sympy',
  parse_log_pytest_options: 'pytest_options',
  parse_log_pydicom: 'pytest_options',
  parse_log_requests: 'pytest_options',
  parse_log_pylint: 'pytest_options',
  parse_log_pytest_v2: 'pytest_v2',
  parse_log_astropy: 'pytest_v2',
  parse_log_scikit: 'pytest_v2',
  parse_log_sphinx: 'pytest_v2',
  parse_log_pytest_pydantic: 'pytest_v2',
  parse_log_matplotlib: 'pytest_matplotlib',
  swesmith_slugify: 'django',
  swesmith_tornado: 'django',
};

/** Our parser for a plan's harness parser: the same family, read our stricter way. */
export function ownParser(harnessParser: string): LogParserName {
  return HARNESS_FAMILY[harnessParser] ?? 'pytest';
}

/** The harness's matplotlib parser names mouse buttons by number, and the datasets list them so. */
function matplotlibName(name: string): string {
  return name.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
}

const PARSERS: Readonly<Record<LogParserName, (log: string) => Map<string, TestStatus>>> = Object.freeze({
  pytest: parsePytestLog,
  pytest_options: (log: string) => new Map([...parsePytestLog(log)].map(([name, status]) => [shortenPathOption(name), status] as const)),
  pytest_v2: (log: string) => parsePytestLog(log.replace(/\x1b?\[\d+m/g, '').replace(CONTROL, '')),
  pytest_matplotlib: (log: string) => new Map([...parsePytestLog(log)].map(([name, status]) => [matplotlibName(name), status] as const)),
  django: parseDjangoLog,
  sympy: parseSympyLog,
});

export function parseTestLog(parser: LogParserName, log: string): Map<string, TestStatus> {
  return PARSERS[parser](log);
}
