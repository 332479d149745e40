import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { diffFiles } from '../diff-files.js';

import { fileOfTestName } from '../../languages/index.js';

export { fileOfTestName };

/**
 * The listed tests' files that are files of the repository: in the pristine container (stat'd by
 * the engine before any code of the submission is on disk or has run) or added by the test patch.
 * A listed test of such a file is a test of this run, which the run's own results must show: the
 * harness's reading of loose log lines may stand in only for names that are no file's test here
 * (`[100%]`, an inner pytest's temporary files), since the log is what the submission's code can
 * print.
 */
export async function repositoryTestFiles(sandbox: Sandbox, task: Task): Promise<ReadonlySet<string>> {
  const root = task.workdir.replace(/\/+$/, '');
  const real = new Set(diffFiles(task.testPatch).map((f) => f.path));
  const candidates = new Set(
    [...task.failToPass, ...task.passToPass].map(fileOfTestName).filter((f): f is string => f !== undefined && !real.has(f)),
  );
  await Promise.all(
    [...candidates].map(async (file) => {
      // Only paths inside the repository: a name cannot point the engine elsewhere.
      if (file.startsWith('/') || file.split('/').includes('..')) return;
      const stat = await sandbox.statPath(`${root}/${file}`);
      if (stat?.isFile) real.add(file);
    }),
  );
  return real;
}
