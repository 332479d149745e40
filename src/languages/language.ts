import type { HarnessSpec, StatusMap } from './shared/py-re.js';
import type { SmithLanguage, SmithProfileRow } from './shared/smith-profile-row.js';

/**
 * What the code knows about one language, behind one shape: its harness (swebench 5.x) and
 * SWE-smith parsers by the name a dataset row gives, the parsers that read a log as one document,
 * SWE-smith's profiles for it, and the runners swe-env plants canaries for. A language folder
 * exports one of these; registry.ts lists them. The grading stages ask the registry, never a
 * runner's name.
 */
export type LanguageName = 'python' | 'go' | 'rust' | 'java' | 'javascript' | 'php' | 'ruby' | 'c-cpp' | 'csharp';

/** swebench 4.1 (and SWE-Gym's fork, and SWE-smith's harness) or swebench 5.x: the Python parsers differ between them. */
export type HarnessGeneration = '4.1' | '5';

/** What a parser may read besides the log: the harness's generation, the instance's id and version. */
export interface ParseContext extends HarnessSpec {
  readonly generation: HarnessGeneration;
}

export type ParseFunction = (log: string, context: ParseContext) => StatusMap;

export interface Language {
  readonly name: LanguageName;
  /** How the prompt and the tool schemas name the language. */
  readonly title: string;
  /** The harness's parsers by the name a row's `log_parser` gives (5.x's PARSER_REGISTRY; Python's of both generations). */
  readonly harnessParsers: Readonly<Record<string, ParseFunction>>;
  /** SWE-smith's parsers for this language's profiles, by swe-env's name for each (`swesmith_...`). */
  readonly smithParsers: Readonly<Record<string, ParseFunction>>;
  /**
   * Parsers that read the log as one document (an XML report, a JSON report, results named by an
   * earlier line): a line alone holds no result for them, so no line-by-line check applies.
   */
  readonly wholeLogParsers?: readonly string[];
  /** SWE-smith's profiles beyond Python, by the language swesmith files them under (Python's have a table of their own). */
  readonly smithProfiles?: Readonly<Partial<Record<SmithLanguage, readonly SmithProfileRow[]>>>;
  /** The runners beyond Python that take canaries, by the parser names whose logs they print. */
  readonly canaryRunners?: readonly CanaryRunner[];
}

/** A runner's name among those taking canaries beyond Python (see CanaryRunner). */
export type LanguageRunner = 'go' | 'cargo' | 'gtest' | 'tap' | 'phpunit';

/**
 * A runner beyond Python that takes canaries: `go test`, cargo and googletest binaries, node:test
 * files and PHPUnit classes. Each predicate errs towards planting none: a canary the command does
 * not run would read as missing, an integrity flag on an honest run.
 */
export interface CanaryRunner {
  readonly name: LanguageRunner;
  /** The parsers reading this runner's log. */
  readonly parsers: readonly string[];
  /** Whether a hidden test file can hold the runner's canaries. */
  canaryFile(path: string, content: string): boolean;
  /** Whether the test command runs every test of the file unfiltered (a name filter would leave a canary out). */
  commandRunsAll(testCommand: string, path: string): boolean;
  /** Whether a failing test stops the rest of the run. */
  stopsEarly(testCommand: string): boolean;
}

/** A generation-free parser of a language beyond Python, as a registry entry. */
export const byName =
  (parse: (log: string, spec: HarnessSpec) => StatusMap): ParseFunction =>
  (log, context) =>
    parse(log, context);

/** A table of the harness's generation-free parsers as registry entries (each reads the instance's id and version). */
export function harnessFunctions(parsers: Readonly<Record<string, (log: string, spec: HarnessSpec) => StatusMap>>): Record<string, ParseFunction> {
  return Object.fromEntries(Object.entries(parsers).map(([name, parse]) => [name, byName(parse)]));
}

/** A table of SWE-smith's parsers as registry entries: swesmith's read the log alone, so they are given no instance. */
export function smithFunctions(parsers: Readonly<Record<string, (log: string, spec: HarnessSpec) => StatusMap>>): Record<string, ParseFunction> {
  return Object.fromEntries(Object.entries(parsers).map(([name, parse]) => [name, (log: string) => parse(log, {})]));
}
