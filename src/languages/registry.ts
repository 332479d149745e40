import { C_CPP } from './c-cpp/index.js';
import { CSHARP } from './csharp/index.js';
import { GO } from './go/index.js';
import { JAVA } from './java/index.js';
import { JAVASCRIPT } from './javascript/index.js';
import type {
  BuildOutput,
  CanaryRunner,
  HarnessGeneration,
  Language,
  LanguageName,
  LanguageRunner,
  ParseFunction,
  ResultReporter,
} from './language.js';
import { PHP } from './php/index.js';
import { PYTHON } from './python/index.js';
import { RUBY } from './ruby/index.js';
import { RUST } from './rust/index.js';
import type { HarnessSpec, StatusMap } from './shared/py-re.js';

/** Every language swe-env grades: adding one is its folder and a line here (the order is the toolchain families' as listed). */
export const LANGUAGES: readonly Language[] = [PYTHON, GO, RUST, JAVASCRIPT, JAVA, RUBY, PHP, C_CPP, CSHARP];

interface Entry {
  readonly language: Language;
  readonly parse: ParseFunction;
  /** One of SWE-smith's parsers, not the harness's. */
  readonly smith: boolean;
}

/** Every parser a record may name, by that name: a name belongs to one language. */
const PARSERS: ReadonlyMap<string, Entry> = (() => {
  const parsers = new Map<string, Entry>();
  for (const language of LANGUAGES) {
    for (const [smith, table] of [
      [false, language.harnessParsers],
      [true, language.smithParsers],
    ] as const) {
      for (const [name, parse] of Object.entries(table)) {
        if (parsers.has(name))
          throw new Error(`log parser ${name} is in two languages: ${parsers.get(name)!.language.name} and ${language.name}`);
        parsers.set(name, { language, parse, smith });
      }
    }
  }
  return parsers;
})();

/** One of the harness's (5.x) languages beyond Python, as the conformance checks name them. */
export type ParserLanguage = LanguageName;

/**
 * A parser a record may name: the harness's Python ones, 5.x's for the other languages (a SWE-bench
 * Multilingual row loads, plans and grades with it), and swesmith's for its other languages.
 */
export function isHarnessParser(name: string): boolean {
  return PARSERS.has(name);
}

/** SWE-smith's parsers, graded by its harness with swebench 4.1's rules. */
export function isSmithParser(name: string): boolean {
  return name.startsWith('swesmith_');
}

/** The language whose runner prints the log the parser reads. */
export function languageOfParser(name: string): Language | undefined {
  return PARSERS.get(name)?.language;
}

/** Whether the parser is a runner's beyond Python (5.x's registry, SWE-smith's other profiles). */
export function isLanguageRun(harnessParser: string): boolean {
  const language = languageOfParser(harnessParser);
  return language !== undefined && language.name !== 'python';
}

/** The language of one of the harness's 5.x parsers beyond Python (SWE-smith's are not its). */
export function languageOf(name: string): ParserLanguage | undefined {
  const entry = PARSERS.get(name);
  return entry && !entry.smith && entry.language.name !== 'python' ? entry.language.name : undefined;
}

/** The harness's 5.x parsers beyond Python (of one language, when named). */
export function languageParserNames(language?: ParserLanguage): string[] {
  return [...PARSERS]
    .filter(([name]) => languageOf(name) !== undefined && (language === undefined || languageOf(name) === language))
    .map(([name]) => name);
}

/** Whether each of the parser's results stands on a line of its own (see Language.wholeLogParsers). */
export function readsLineByLine(name: string): boolean {
  return !LANGUAGES.some((language) => language.wholeLogParsers?.includes(name));
}

/**
 * The harness's parser a plan names (the row's `log_parser` where it gives one) on a log: a Python
 * one of either generation, one of 5.x's for other languages (generation-free; `spec` is the
 * instance id and version the few that choose by instance read), or one of SWE-smith's.
 */
export function harnessParse(parser: string, log: string, generation: HarnessGeneration, spec: HarnessSpec = {}): StatusMap {
  const entry = PARSERS.get(parser);
  if (!entry) throw new Error(`unknown harness log parser ${parser}`);
  return entry.parse(log, { ...spec, generation });
}

/** The runner a harness parser reads, when swe-env can plant canaries for it. */
export function languageRunner(harnessParser: string): LanguageRunner | undefined {
  return languageOfParser(harnessParser)?.canaryRunners?.find((runner) => runner.parsers.includes(harnessParser))?.name;
}

const RUNNERS: ReadonlyMap<LanguageRunner, CanaryRunner> = new Map(
  LANGUAGES.flatMap((language) => (language.canaryRunners ?? []).map((runner) => [runner.name, runner] as const)),
);

/** The runner of that name. */
export function canaryRunner(name: LanguageRunner): CanaryRunner {
  return RUNNERS.get(name)!;
}

/** Whether a runner family's name is one of the runners beyond Python that take canaries. */
export function isLanguageRunner(name: string): name is LanguageRunner {
  return RUNNERS.has(name as LanguageRunner);
}

/**
 * The reporter swe-env attaches to a failures-only run (`eval_type: fail_only`) of the parser, when
 * the test command runs a runner it has one for; undefined when none can make it report every test.
 */
export function resultReporterFor(harnessParser: string, testCommand: string): ResultReporter | undefined {
  return languageOfParser(harnessParser)?.resultReporters?.find(
    (reporter) => reporter.parsers.includes(harnessParser) && reporter.attachesTo(testCommand),
  );
}

/** Every language's build outputs (a repository of one language may hold another's manifests). */
export function buildOutputs(): readonly BuildOutput[] {
  return LANGUAGES.flatMap((language) => language.buildOutputs ?? []);
}
