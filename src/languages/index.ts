/**
 * The language wing: everything swe-env knows about one language sits in its folder
 * (src/languages/<language>/), behind the Language interface (language.ts) and one registry
 * (registry.ts). Code outside the wing imports this file only; the wing imports nothing above
 * src/common.
 */
export type {
  BuildOutput,
  CanaryBlock,
  CanaryRunner,
  CanaryText,
  HarnessGeneration,
  Language,
  LanguageName,
  LanguageRunner,
  MirrorSource,
  MirrorText,
  ParseContext,
  ParseFunction,
  ReporterCanary,
  ResultReporter,
  RunnerRules,
} from './language.js';
export { REPORTER_CANARY_PREFIX, reporterCanaryKey } from './language.js';
export {
  LANGUAGES,
  buildOutputs,
  canaryRunner,
  harnessParse,
  isHarnessParser,
  isLanguageRun,
  isLanguageRunner,
  isSmithParser,
  languageOf,
  languageOfParser,
  languageParserNames,
  languageRunner,
  readsLineByLine,
  resultReporterFor,
  type ParserLanguage,
} from './registry.js';
export { isLanguageControlPath } from './runner-control.js';
export { SWE_SMITH_LANGUAGE_PROFILES, type SmithLanguage, type SmithLanguageProfile } from './smith-profiles.js';
export type { HarnessSpec, LanguageParser, StatusMap } from './shared/py-re.js';
export {
  fileOfTestName,
  TEST_STATUSES,
  type ListedStatus,
  type Resolution,
  type TestStatus,
  type TestStatusMap,
} from './shared/test-status.js';
export { isMutableLiteral, mutateLiteral } from './shared/literal-mutation.js';
export {
  HARNESS_PARSERS,
  ownParser,
  parsePytestLog,
  parseTestLog,
  shortenPathOption,
  SWE_SMITH_DEFAULT_TEST_CMD,
  SWE_SMITH_PROFILES,
  type LogParserName,
  type SmithProfile,
} from './python/index.js';
export { UNREGISTERED_PARSERS } from './javascript/index.js';
