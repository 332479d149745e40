/**
 * Reads a SWE-bench 5.x row's own `eval_script` (the eval.sh the harness runs for it) into the parts
 * an eval plan needs. The harness writes two shapes (swebench 4.1's make_eval_script_list_py and
 * make_eval_script_list_common, which 5.x rows carry as written):
 *
 * - Python: activation and `cd`, the row's eval commands, an informational block (`git config
 *   --global --add safe.directory`, `git status`, `git show`, `git diff <base>`), activation again,
 *   the install step, `git checkout <base> <test files>`, the test patch in a heredoc, the test
 *   command between the `>>>>> Start Test Output` and `>>>>> End Test Output` markers, and the test
 *   files checked out again;
 * - other languages: `cd`, the informational block, the reset (`git checkout ...`, or `echo "No test
 *   files to reset"`), steps before the test patch (image assets downloaded), the test patch, the
 *   build steps, the markers around the test commands, the reset again.
 *
 * Every line is accounted for: it is the grader's own work (activation, `cd` to the repository, the
 * informational block, the resets, the test patch, the markers and the exit-code capture, all of
 * which the grader does itself and checks), or a step of the plan, run in order; a line the plan
 * cannot run is listed in `notes` with why (the plan's notes: `swe-env plan`, the grade report), never
 * dropped silently.
 */
export interface ScriptParts {
  readonly evalCommands: readonly string[];
  readonly install: string;
  readonly resetFiles: readonly string[];
  /** Steps between the reset of the test files and the test patch. */
  readonly beforeTestPatch: readonly string[];
  /** Steps between the test patch and the start marker (build steps, pins, exports). */
  readonly afterTestPatch: readonly string[];
  readonly testCommand: string;
  /** Lines of the script the plan does not run, or runs elsewhere than the script does, each with why. */
  readonly notes: readonly string[];
}

const START = '>>>>> Start Test Output';
const END = '>>>>> End Test Output';
const HEREDOC = /<<-?\s*'?"?([A-Za-z_][A-Za-z0-9_]*)'?"?/;

/** The lines of a script, a heredoc's body folded into the line that opens it. */
function logicalLines(script: string): string[] {
  const out: string[] = [];
  const raw = script.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < raw.length; i++) {
    let line = raw[i]!;
    const heredoc = HEREDOC.exec(line);
    if (heredoc) {
      const end = heredoc[1]!;
      while (i + 1 < raw.length && raw[i + 1] !== end) line += `\n${raw[++i]!}`;
      if (i + 1 < raw.length) line += `\n${raw[++i]!}`;
    }
    out.push(line);
  }
  return out;
}

const PREAMBLE = [/^#!/, /^set -[a-z]+( -o \w+)*( pipefail)?$/, /^source \/opt\/miniconda3\/bin\/activate$/, /^conda activate \S+$/];
const INFORMATIONAL = [
  /^git config --global --add safe\.directory /,
  /^git status$/,
  /^git show$/,
  /^git (-c core\.fileMode=false )?diff [0-9a-f]{7,40}$/,
];
/** 5.x's exit-code capture around the end marker: the grader takes the exit code from the test process. */
const EXIT_CODE = [/^[A-Z_]+=\$\?$/, /^echo ">>>>> Test Exit Code: \$[A-Z_]+"$/];
const NO_TEST_FILES = 'echo "No test files to reset"';

function isPreamble(line: string): boolean {
  return PREAMBLE.some((p) => p.test(line));
}

function isInformational(line: string): boolean {
  return INFORMATIONAL.some((p) => p.test(line));
}

function isReset(line: string, baseCommit: string): boolean {
  return line.startsWith(`git checkout ${baseCommit}`) || line === NO_TEST_FILES;
}

/**
 * 5.x rows whose test patch only adds files reset with `rm -f <those files>` right before the test
 * patch's `git apply` (23 Multilingual rows: valkey-790, babel-13928, jekyll-8771, ...): nothing to
 * check out from the base, and the grader writes the patch's new files itself. Only a `rm -f`
 * followed by the heredoc counts, so an install step's own `rm -f` is never taken for the reset.
 */
function isNewFilesReset(lines: readonly string[], i: number): boolean {
  return /^rm -f( [^\s;&|]+)+$/.test(lines[i]!) && /^git apply\b/.test(lines[i + 1] ?? '') && HEREDOC.test(lines[i + 1]!);
}

/** The parts of a harness-shaped eval script, or why it is not one. */
export function readEvalScript(script: string, baseCommit: string): ScriptParts | { error: string } {
  const lines = logicalLines(script)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const start = lines.findIndex((l) => l.includes(START));
  const end = lines.findIndex((l) => l.includes(END));
  if (start < 0 || end < start) return { error: `eval_script has no "${START}" ... "${END}" markers around its test command` };
  const reset = lines.findIndex((l, i) => i < start && (isReset(l, baseCommit) || isNewFilesReset(lines, i)));
  if (reset < 0)
    return { error: `eval_script does not check out the test files from base_commit ${baseCommit.slice(0, 12)} before its tests` };
  const resetLine = lines[reset]!;
  const checksOut = resetLine.startsWith(`git checkout ${baseCommit}`);
  const resetFiles = checksOut ? resetLine.slice(`git checkout ${baseCommit}`.length).trim().split(/\s+/).filter(Boolean) : [];
  const { evalCommands, install } = stepsBeforeReset(lines.slice(0, reset));
  const notes: string[] = [];
  const { beforeTestPatch, afterTestPatch } = stepsAroundTestPatch(lines.slice(reset + 1, start), notes);
  const testCommand = lines
    .slice(start + 1, end)
    .filter((l) => !EXIT_CODE.some((p) => p.test(l)))
    .join('\n');
  if (testCommand.trim() === '') return { error: 'eval_script has nothing between its test output markers' };
  for (const line of lines.slice(end + 1)) {
    if (EXIT_CODE.some((p) => p.test(line)) || isReset(line, baseCommit) || line === resetLine) continue;
    // After the tests, nothing can change what they reported.
    notes.push(`dropped: after the end marker, not run (it cannot change the tests' results): ${line}`);
  }
  return { evalCommands, install, resetFiles, beforeTestPatch, afterTestPatch, testCommand, notes };
}

/** <preamble> cd <repo> <eval commands> <informational> <preamble> <install>, as the harness writes them. */
function stepsBeforeReset(before: readonly string[]): { evalCommands: string[]; install: string } {
  let i = 0;
  while (i < before.length && (isPreamble(before[i]!) || before[i]!.startsWith('cd '))) i++;
  const infoStart = before.findIndex((l, k) => k >= i && isInformational(l));
  const evalCommands = before.slice(i, infoStart < 0 ? i : infoStart);
  let j = infoStart < 0 ? i : infoStart;
  while (j < before.length && (isInformational(before[j]!) || isPreamble(before[j]!) || before[j]!.startsWith('cd '))) j++;
  return { evalCommands, install: before.slice(j).join('\n') };
}

/**
 * The steps between the reset and the start marker, either side of the test patch's `git apply`
 * heredoc (the grader applies the row's test_patch itself, at that point).
 */
function stepsAroundTestPatch(between: readonly string[], notes: string[]): { beforeTestPatch: string[]; afterTestPatch: string[] } {
  const apply = between.findIndex((l) => /^git apply\b/.test(l) && HEREDOC.test(l));
  if (apply < 0) {
    if (between.length > 0)
      notes.push(
        "eval_script applies no test patch in a heredoc: the grader applies the row's test_patch right after the reset, before the steps that follow it",
      );
    return { beforeTestPatch: [], afterTestPatch: [...between] };
  }
  return { beforeTestPatch: between.slice(0, apply), afterTestPatch: between.slice(apply + 1) };
}
