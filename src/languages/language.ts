import type { HarnessSpec, StatusMap } from './shared/py-re.js';
import type { SmithLanguage, SmithProfileRow } from './shared/smith-profile-row.js';

/**
 * What the code knows about one language, behind one shape: its harness (swebench 5.x) and
 * SWE-smith parsers by the name a dataset row gives, the parsers that read a log as one document,
 * SWE-smith's profiles for it, and the runners swe-env plants canaries for. A language folder
 * exports one of these; registry.ts lists them. The grading stages ask the registry, never a
 * runner's name.
 */
/** A language's folder name (`python`, `go`, `rust`, `java`, `javascript`, `php`, `ruby`, `c-cpp`, `csharp`): the registry lists them, no type does. */
export type LanguageName = string;

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
  /**
   * The toolchain family a base image variant adds for it (`swe-env images base --family NAME`, one
   * layer on the sandbox base image): Debian bookworm packages only, from the machine's own apt
   * sources, so an image builds with only the Debian mirror reachable.
   */
  readonly toolchain?: { readonly family: string; readonly packages: readonly string[] };
  /**
   * What the language's runners read or run around their tests, which a change may no more touch
   * than a pytest configuration (the task's own fix still may: allowedPaths).
   */
  readonly runnerControl?: RunnerControl;
  /** The runners beyond Python that take canaries, by the parser names whose logs they print. */
  readonly canaryRunners?: readonly CanaryRunner[];
  /** Reporters swe-env attaches to runners whose own log names failures only (a row's `eval_type: fail_only`). */
  readonly resultReporters?: readonly ResultReporter[];
  /**
   * What the language's build tools write beside the manifest they read (cargo's `target` beside
   * Cargo.toml, npm's `node_modules` beside package.json): never part of a captured change,
   * whether or not the repository's ignore rules name it, unless the base commit tracks files there
   * (a committed vendor/ is the project's source).
   */
  readonly buildOutputs?: readonly BuildOutput[];
}

/** A build tool's output folder (or whatever stands at its name) beside each manifest of that name. */
export interface BuildOutput {
  /** The manifest's file name (`Cargo.toml`). */
  readonly manifest: string;
  /** The names the tool writes beside it (`target`). */
  readonly outputs: readonly string[];
}

/**
 * A reporter of swe-env's own for a runner that prints failures only: attached to the test command,
 * it prints every finished test's status on lines carrying a per-grading token, so a listed test
 * passes on a line saying so, never by its absence (what skipping it or ending the run early gives).
 */
export interface ResultReporter {
  readonly runner: string;
  /** The failures-only parsers whose runs it completes. */
  readonly parsers: readonly string[];
  /** Whether the test command runs the runner where the reporter can be attached. */
  attachesTo(testCommand: string): boolean;
  /** Whether every test the module declares runs under the command (no name filter leaves them out). */
  runsDeclared(testCommand: string): boolean;
  /** The test command with the reporter's module (at modulePath) attached. */
  attach(testCommand: string, modulePath: string): string;
  /** The module's file name. */
  readonly moduleFile: string;
  /**
   * The module's text: it reads its plan (the token and the canaries, see planText) from planFile and
   * removes the file before any repository code runs, declares the canaries, and prints every
   * finished test's status on a line carrying the token (a canary's under its key, `#canary:<i>`).
   */
  moduleText(planFile: string): string;
  /** The plan file's text. */
  planText(token: string, canaries: readonly ReporterCanary[]): string;
  /** The statuses of the lines carrying the token. */
  parse(log: string, token: string): StatusMap;
}

/** A test the reporter's module declares itself: the sum of `values` checked against `expected`. */
export interface ReporterCanary {
  /** The group it is declared in and its own name (words of the row's listed tests). */
  readonly suite: string;
  readonly name: string;
  readonly values: readonly number[];
  readonly expected: number;
  /**
   * Checked through the runner's asynchronous expectations where it has them (jasmine's
   * expectAsync): a change that stubs only those, as the specs of marked check, passes every
   * listed spec and this must-fail canary alike.
   */
  readonly async?: boolean;
}

/** The result keys of the reporter's canaries: the prefix and the canary's number (no test's full name starts so). */
export const REPORTER_CANARY_PREFIX = '#canary:';
export const reporterCanaryKey = (i: number): string => `${REPORTER_CANARY_PREFIX}${i}`;

export interface RunnerControl {
  /** Whether the path (split at `/`; its last component may be a symlink standing for a folder) is one the runners read or run. */
  isControlPath(parts: readonly string[]): boolean;
  /** The build definitions the test command's own tools read (a tool the command names, the file name it reads): grading is offline, so a new dependency they would name could not be fetched anyway. */
  readonly buildDefinitions?: ReadonlyArray<readonly [tool: RegExp, file: RegExp]>;
  /**
   * What a grading step run once the change is applied installs from (a step the step's pattern
   * matches, the file name it reads): npm's install runs the lifecycle scripts package.json names,
   * code of the change's before any test, so the definition is the runner's wherever a step installs.
   */
  readonly installDefinitions?: ReadonlyArray<readonly [step: RegExp, file: RegExp]>;
}

/** A runner's name among those taking canaries beyond Python (see CanaryRunner). */
export type LanguageRunner = 'go' | 'cargo' | 'gtest' | 'tap' | 'phpunit' | 'rspec';

/**
 * A runner beyond Python that takes canaries: `go test`, cargo and googletest binaries, node:test
 * files and PHPUnit classes. Where canaries go (RunnerRules), how a synthetic one is written
 * (CanaryText) and how a listed test is copied (MirrorText): the grading stages hold the rest.
 */
export interface CanaryRunner extends RunnerRules, CanaryText, MirrorText {
  readonly name: LanguageRunner;
  /** The parsers reading this runner's log. */
  readonly parsers: readonly string[];
}

/** Each predicate errs towards planting none: a canary the command does not run would read as missing, an integrity flag on an honest run. */
export interface RunnerRules {
  /** Whether a hidden test file can hold the runner's canaries. */
  canaryFile(path: string, content: string): boolean;
  /** Whether the test command runs every test of the file unfiltered (a name filter would leave a canary out). */
  commandRunsAll(testCommand: string, path: string): boolean;
  /** Whether a failing test stops the rest of the run. */
  stopsEarly(testCommand: string): boolean;
  /** Whether a result key of the log is the canary's. */
  keyMatches(canary: { readonly name: string; readonly className?: string }, key: string): boolean;
  /** The runner's own exit status, when the code under test cannot print it (`go test`, `cargo test`): a run with a planted failure cannot exit 0. */
  readonly exitStatusOf?: string;
  /**
   * A shell script printing names a canary must not take beyond the file's own (Go: the functions of
   * the package's other files), run with the work tree and the targets' folders as arguments.
   */
  readonly reservedNamesScript?: string;
}

/** How a synthetic canary is named, written and placed. */
export interface CanaryText {
  /** The file's own test names (group 1), whose words name the canaries. */
  readonly testNamePattern: RegExp;
  /** A test name's words, and the shape of a word kept. */
  nameWords(testName: string): string[];
  readonly wordShape: RegExp;
  /** A canary's name from its words; from attempt 50 on, with a suffix that makes it new. */
  canaryName(words: readonly string[], attempt: number): string;
  /** How the name is spelled in the source (PHPUnit: test<Name>): taken when the file has it. */
  spelled(name: string): string;
  /** The name the runner's log gives a canary. */
  reported(name: string): string;
  /** A test summing `values` and checking the sum against `expected`; `where`: googletest's suite, node:test's test function. */
  canaryBody(name: string, where: string, values: readonly number[], expected: number): string;
  /** A copy's closing line. */
  readonly closing: string;
  /**
   * The row's listed tests the file defines, for the runners whose canaries count as missing only
   * when those reported (undefined: any other result means the file ran).
   */
  fileSiblings?(content: string, listed: readonly string[]): string[];
  /** The suite a canary joins (googletest: a listed test's; PHPUnit: testdox's prefix; else none). */
  suiteOf(siblings: readonly string[], random: (n: number) => number): string;
  /** What a canary is declared with: googletest's suite, node:test's `test` or `it`. */
  where(content: string, suite: string): string;
  /**
   * Where canaries go: after a random top-level item (Go, Rust: `startsItem` tells whether the line
   * after a first-column `}` starts one, `definitionStart` finds a listed test, which a copy follows),
   * inside the file's one class (PHPUnit), or else after the file's last line (unless `place` below
   * places them).
   */
  readonly placement?:
    { readonly startsItem: (next: string) => boolean; readonly definitionStart: (line: string, listed: string) => boolean } | 'class';
  /**
   * Where canaries go when the language places them itself (RSpec: beside the listed examples whose
   * groups they join); `anchors` are the file's siblings (fileSiblings).
   */
  place?(content: string, blocks: readonly CanaryBlock[], anchors: readonly string[], random: (n: number) => number): string;
}

/** A canary's text, and for a mirror the listed test it copies (it must run after that one). */
export interface CanaryBlock {
  readonly text: string;
  readonly after?: string;
}

/** A listed test's function, when it is plain enough to copy. */
export interface MirrorSource {
  /** The test function's body lines (between its header and closing brace). */
  readonly body: readonly string[];
  /** Go: the *testing.T parameter's name; googletest: the macro (TEST or TEST_F). */
  readonly param: string;
  /** googletest: the test's suite (a copy stays in it, so it runs wherever the original does). */
  readonly suite?: string;
  /** node:test: the test's call with its title as `%TITLE%`. */
  readonly header?: string;
}

/** How a listed test is copied under another name, exact, inverted or with a literal changed. */
export interface MirrorText {
  /** The shape of a listed name this runner can mirror. */
  readonly listedShape: RegExp;
  mirrorSource(content: string, name: string): MirrorSource | undefined;
  mirrorHeader(name: string, source: MirrorSource): string[];
  /** Body line i with its check inverted, when it is a check this runner inverts. */
  invertCheck(body: readonly string[], i: number, source: MirrorSource): string | undefined;
  /** Body line i with the literal of its equality check changed. */
  mutateCheck(body: readonly string[], i: number, source: MirrorSource, random: (n: number) => number): string | undefined;
  /** Whether the line may leave the test early beyond what every runner's does (Go's t.Skip). */
  leavesEarly?(line: string, param: string): boolean;
}

/** A generation-free parser of a language beyond Python, as a registry entry. */
export const byName =
  (parse: (log: string, spec: HarnessSpec) => StatusMap): ParseFunction =>
  (log, context) =>
    parse(log, context);

/** A table of the harness's generation-free parsers as registry entries (each reads the instance's id and version). */
export function harnessFunctions(
  parsers: Readonly<Record<string, (log: string, spec: HarnessSpec) => StatusMap>>,
): Record<string, ParseFunction> {
  return Object.fromEntries(Object.entries(parsers).map(([name, parse]) => [name, byName(parse)]));
}

/** A table of SWE-smith's parsers as registry entries: swesmith's read the log alone, so they are given no instance. */
export function smithFunctions(
  parsers: Readonly<Record<string, (log: string, spec: HarnessSpec) => StatusMap>>,
): Record<string, ParseFunction> {
  return Object.fromEntries(Object.entries(parsers).map(([name, parse]) => [name, (log: string) => parse(log, {})]));
}
