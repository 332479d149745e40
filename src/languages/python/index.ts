import type { Language, ParseFunction } from '../language.js';
import { HARNESS_PARSERS } from './harness-parsers.js';

const parsers = (smith: boolean): Record<string, ParseFunction> =>
  Object.fromEntries(
    Object.entries(HARNESS_PARSERS)
      .filter(([name]) => name.startsWith('swesmith_') === smith)
      .map(([name, parse]): [string, ParseFunction] => [name, (log, context) => parse(log, context.generation)]),
  );

/**
 * Python: the harness's parsers of both generations and SWE-smith's Python profiles' parsers (one
 * table, harness-parsers.ts), swe-env's own stricter readings (own-parsers.ts) and SWE-smith's
 * Python profiles (smith-profiles.ts, a table of their own shape). Its runners (pytest, unittest,
 * sympy's) take canaries through the in-process monitor, not through a CanaryRunner.
 */
export const PYTHON: Language = {
  name: 'python',
  title: 'Python',
  harnessParsers: parsers(false),
  smithParsers: parsers(true),
};

export { HARNESS_PARSERS } from './harness-parsers.js';
export { ownParser, parseTestLog, shortenPathOption, type LogParserName } from './own-parsers.js';
export { parsePytestLog } from './pytest-log.js';
export { SWE_SMITH_DEFAULT_TEST_CMD, SWE_SMITH_PROFILES, type SmithProfile } from './smith-profiles.js';
