import type { LogParserName } from '../../tasks/repo-specs.js';
import type { TestStatus } from '../test-status.js';
import { parsePytestLog } from './pytest.js';

const PARSERS: Readonly<Record<LogParserName, (log: string) => Map<string, TestStatus>>> = Object.freeze({
  pytest: parsePytestLog,
});

export function parseTestLog(parser: LogParserName, log: string): Map<string, TestStatus> {
  return PARSERS[parser](log);
}
