import type { Task } from '../../tasks/task.js';
import type { EvalPlan } from './plan-type.js';
import type { SmithLanguageProfile } from '../../languages/index.js';

/**
 * The plan of a SWE-smith task whose repository has one of swesmith's non-Python profiles: the
 * profile's test command (get_test_cmd gives it unchanged: no such profile is `min_testing`; babel
 * adds the packages its bug patch touches) and its log parser, swebench 4.1's rules as for Python.
 * Loading and planning only: swe-env's own reading of these logs, which grading needs beside the
 * harness's, is Python's, so the note says so.
 */
export function smithLanguagePlan(task: Task, profile: SmithLanguageProfile): EvalPlan {
  let testCommand = profile.testCmd;
  if (profile.packageFolders) testCommand = `${testCommand} ${packageFolders(task.bugPatch ?? '').join(' ')}`;
  return {
    source: task.testCmd ? 'record-test-cmd' : 'swe-smith',
    evalCommands: [],
    install: task.install ?? '',
    beforeTestPatch: [],
    afterTestPatch: [],
    testCommand: task.testCmd ?? testCommand,
    resetFiles: [],
    harnessParser: task.logParser ?? profile.parser,
    notes: [
      `swesmith's ${profile.language} profile: its test command and parser are planned, but swe-env grades only Python repositories end to end (it has no reading of its own of a ${profile.language} log)`,
    ],
    harnessGeneration: '4.1',
  };
}

/** babel's get_test_cmd: `packages/<name>` of every file of the patch under packages/, repeats kept, in order. */
export function packageFolders(patch: string): string[] {
  return patchPaths(patch)
    .map((path) => path.split('/'))
    .filter((parts) => parts.length >= 2 && parts[0] === 'packages')
    .map((parts) => `packages/${parts[1]!}`);
}

const GIT_HEADER = /^diff --git ("?a\/[^\t\n]+"?) ("?b\/[^\t\n]+"?)/;

/**
 * unidiff's PatchedFile.path for each file of a git diff: the `---` name, or the `+++` one for a
 * created or renamed file (the `diff --git` header's when a line is missing), less its quotes and
 * its `a/`-style prefix.
 */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const chunk of patch.split(/^(?=diff --git )/m)) {
    const header = GIT_HEADER.exec(chunk);
    if (!header) continue;
    // Only the file's own header lines: a hunk may hold a line that starts with "--- ".
    const head = chunk.split(/^@@ /m)[0]!;
    const source = /^--- ("?[^\t\n]*"?)/m.exec(head)?.[1] ?? header[1]!;
    const target = /^\+\+\+ ("?[^\t\n]*"?)/m.exec(head)?.[1] ?? header[2]!;
    const renamed = /^rename from /m.test(head);
    const path = source === '/dev/null' || (renamed && target !== '/dev/null') ? target : source;
    paths.push(withoutPrefix(path));
  }
  return paths;
}

function withoutPrefix(path: string): string {
  const quoted = path.length >= 2 && path.startsWith('"') && path.endsWith('"');
  const bare = quoted ? path.slice(1, -1) : path;
  const stripped = /^[abciow12]\//.test(bare) ? bare.slice(2) : bare;
  return quoted ? `"${stripped}"` : stripped;
}
