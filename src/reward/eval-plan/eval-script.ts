/**
 * Reads a SWE-bench 5.x row's own `eval_script` (the eval.sh the harness runs for it) into the parts
 * an eval plan needs. The script has the shape the harness writes: activation and `cd`, the row's
 * eval commands, an informational block (`git config --global --add safe.directory`, `git status`,
 * `git show`, `git diff <base>`), activation again, the install step, `git checkout <base> <test
 * files>`, the test patch in a heredoc, the test command between the `>>>>> Start Test Output` and
 * `>>>>> End Test Output` markers, and the test files checked out again. The test patch and the
 * checkouts are the grader's own work (it checks them); everything else is taken as written.
 */
export interface ScriptParts {
  readonly evalCommands: readonly string[];
  readonly install: string;
  readonly resetFiles: readonly string[];
  readonly testCommand: string;
}

const START = ">>>>> Start Test Output";
const END = ">>>>> End Test Output";
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
const INFORMATIONAL = [/^git config --global --add safe\.directory /, /^git status$/, /^git show$/, /^git (-c core\.fileMode=false )?diff [0-9a-f]{7,40}$/];

function isPreamble(line: string): boolean {
  return PREAMBLE.some((p) => p.test(line));
}

/** The parts of a harness-shaped eval script, or why it is not one. */
export function readEvalScript(script: string, baseCommit: string): ScriptParts | { error: string } {
  const lines = logicalLines(script).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const start = lines.findIndex((l) => l.includes(START));
  const end = lines.findIndex((l) => l.includes(END));
  if (start < 0 || end < start) return { error: `eval_script has no "${START}" ... "${END}" markers around its test command` };
  const reset = lines.findIndex((l, i) => i < start && l.startsWith(`git checkout ${baseCommit}`));
  if (reset < 0) return { error: `eval_script does not check out the test files from base_commit ${baseCommit.slice(0, 12)} before its tests` };
  const resetFiles = lines[reset]!.slice(`git checkout ${baseCommit}`.length).trim().split(/\s+/).filter(Boolean);
  // The harness writes: <preamble> cd <repo> <eval commands> <informational> <preamble> <install>.
  const before = lines.slice(0, reset);
  let i = 0;
  while (i < before.length && (isPreamble(before[i]!) || before[i]!.startsWith('cd '))) i++;
  const infoStart = before.findIndex((l, k) => k >= i && INFORMATIONAL.some((p) => p.test(l)));
  const evalCommands = before.slice(i, infoStart < 0 ? i : infoStart);
  let j = infoStart < 0 ? i : infoStart;
  while (j < before.length && (INFORMATIONAL.some((p) => p.test(before[j]!)) || isPreamble(before[j]!) || before[j]!.startsWith('cd '))) j++;
  const install = before.slice(j).join('\n');
  const testCommand = lines
    .slice(start + 1, end)
    .filter((l) => !/^[A-Z_]+=\$\?$/.test(l))
    .join('\n');
  if (testCommand.trim() === '') return { error: 'eval_script has nothing between its test output markers' };
  return { evalCommands, install, resetFiles, testCommand };
}
