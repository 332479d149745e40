import { parseLogDoctest, parseLogGoogletest, parseLogJq, parseLogMicropythonTest, parseLogRedis } from './c-cpp.js';
import { parseLogGotest } from './go.js';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from './java.js';
import { parseLogCalypso, parseLogHighlightjs, parseLogImmutableJs, parseLogJest, parseLogJestJson, parseLogKarma, parseLogMarked, parseLogTap, parseLogVitest } from './javascript.js';
import {
  parseLogBpmnJs,
  parseLogCarbon,
  parseLogChartJs,
  parseLogCypress,
  parseLogEmotion,
  parseLogEslint,
  parseLogGrommet,
  parseLogLighthouse,
  parseLogNext,
  parseLogOpenlayers,
  parseLogP5js,
  parseLogPrismjs,
  parseLogQuartoCli,
  parsePlotlyJs,
} from './javascript-repos.js';
import { parseLogPhpunit } from './php.js';
import type { HarnessSpec, LanguageParser, StatusMap } from './py-re.js';
import { parseLogCucumber, parseLogJekyll, parseLogMinitest, parseLogRspecTransformedJson, parseLogRubyUnit } from './ruby.js';
import { parseLogCargo } from './rust.js';

export type { HarnessSpec, LanguageParser, StatusMap } from './py-re.js';

export type ParserLanguage = 'c-cpp' | 'go' | 'java' | 'javascript' | 'php' | 'ruby' | 'rust';

interface Entry {
  readonly language: ParserLanguage;
  readonly parse: LanguageParser;
}

const entries = (language: ParserLanguage, parsers: Record<string, LanguageParser>): Array<[string, Entry]> =>
  Object.entries(parsers).map(([name, parse]) => [name, { language, parse }]);

/**
 * swebench 5.x's PARSER_REGISTRY beyond Python, by the name a dataset row's `log_parser` gives:
 * the name is the whole choice (5.x rows name their parser; the repository maps are 4.x's way).
 */
const REGISTRY: ReadonlyMap<string, Entry> = new Map([
  ...entries('c-cpp', {
    parse_log_redis: parseLogRedis,
    parse_log_jq: parseLogJq,
    parse_log_doctest: parseLogDoctest,
    parse_log_micropython_test: parseLogMicropythonTest,
    parse_log_googletest: parseLogGoogletest,
  }),
  ...entries('go', { parse_log_gotest: parseLogGotest }),
  ...entries('java', { parse_log_maven: parseLogMaven, parse_log_ant: parseLogAnt, parse_log_gradle_custom: parseLogGradleCustom }),
  ...entries('javascript', {
    parse_log_calypso: parseLogCalypso,
    parse_log_bpmn_js: parseLogBpmnJs,
    parse_log_carbon: parseLogCarbon,
    parse_log_eslint: parseLogEslint,
    parse_log_grommet: parseLogGrommet,
    parse_log_highlightjs: parseLogHighlightjs,
    parse_log_lighthouse: parseLogLighthouse,
    parse_log_next: parseLogNext,
    parse_log_openlayers: parseLogOpenlayers,
    parse_log_prismjs: parseLogPrismjs,
    parse_log_quarto_cli: parseLogQuartoCli,
    parse_log_chart_js: parseLogChartJs,
    parse_log_marked: parseLogMarked,
    parse_log_p5js: parseLogP5js,
    // react-pdf's parser is a copy of carbon's.
    parse_log_react_pdf: parseLogCarbon,
    parse_log_jest: parseLogJest,
    parse_log_jest_json: parseLogJestJson,
    parse_log_vitest: parseLogVitest,
    parse_log_karma: parseLogKarma,
    parse_log_tap: parseLogTap,
    parse_log_immutable_js: parseLogImmutableJs,
  }),
  ...entries('php', { parse_log_phpunit: parseLogPhpunit }),
  ...entries('ruby', {
    parse_log_minitest: parseLogMinitest,
    parse_log_cucumber: parseLogCucumber,
    parse_log_ruby_unit: parseLogRubyUnit,
    parse_log_rspec_transformed_json: parseLogRspecTransformedJson,
    parse_log_jekyll: parseLogJekyll,
  }),
  ...entries('rust', { parse_log_cargo: parseLogCargo }),
]);

/**
 * Functions of the harness's javascript.py that only its MAP_REPO_TO_PARSER_JS names (plotly.js,
 * emotion, cypress; scratch-gui, prettier and lighthouse's jest are carbon's). A 5.x row cannot
 * name them (the harness would fail on the unknown name), so they are not in the registry; they
 * are ported, and checked, by their Python names.
 */
export const UNREGISTERED_PARSERS: Readonly<Record<string, LanguageParser>> = Object.freeze({
  parse_plotly_js: parsePlotlyJs,
  parse_log_emotion: parseLogEmotion,
  parse_log_cypress: parseLogCypress,
  parse_log_scratch_gui: parseLogCarbon,
  parse_log_prettier: parseLogCarbon,
  parse_log_lighthouse_jest: parseLogCarbon,
});

/**
 * Parsers that read the log as one document (an XML report, a JSON report, results named by an
 * earlier line): a line alone holds no result for them, so no line-by-line check applies.
 * SWE-smith's parsers are not in this registry and are all read line by line.
 */
const WHOLE_LOG_PARSERS: ReadonlySet<string> = new Set(['parse_log_doctest', 'parse_log_jest_json', 'parse_log_rspec_transformed_json', 'parse_log_maven']);

/** Whether each of the parser's results stands on a line of its own (see WHOLE_LOG_PARSERS). */
export function readsLineByLine(name: string): boolean {
  return !WHOLE_LOG_PARSERS.has(name);
}

export function isLanguageParser(name: string): boolean {
  return REGISTRY.has(name);
}

export function languageOf(name: string): ParserLanguage | undefined {
  return REGISTRY.get(name)?.language;
}

export function languageParserNames(language?: ParserLanguage): string[] {
  return [...REGISTRY].filter(([, e]) => language === undefined || e.language === language).map(([name]) => name);
}

/** The harness's parser named `name` on a log; `spec` is what jekyll, immutable-js, next and lighthouse read. */
export function parseLanguageLog(name: string, log: string, spec: HarnessSpec = {}): StatusMap {
  const entry = REGISTRY.get(name);
  if (!entry) throw new Error(`unknown harness log parser ${name}`);
  return entry.parse(log, spec);
}
