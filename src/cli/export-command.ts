import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { harborDirName, harborTaskFiles } from '../tasks/harbor-task.js';
import { collect, loadAll, selectInstances } from './options.js';

interface ExportOptions {
  tasks: string[];
  out: string;
  instance?: string[];
  imageTemplate?: string;
}

/** Writes one Harbor task directory per task under `out`; returns the directories written. */
export async function exportHarbor(o: ExportOptions): Promise<string[]> {
  const tasks = selectInstances(await loadAll(o.tasks, o.imageTemplate), o.instance);
  const written: string[] = [];
  for (const task of tasks) {
    const dir = join(o.out, harborDirName(task.id));
    for (const [path, text] of harborTaskFiles(task)) {
      const file = join(dir, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      if (path.endsWith('.sh')) await chmod(file, 0o755);
    }
    written.push(dir);
  }
  return written;
}

export function registerExportCommand(program: Command): void {
  const exportCommand = program.command('export').description("write tasks in another framework's task format");
  exportCommand
    .command('harbor')
    .description('Harbor task directories (task.toml, instruction.md, environment/, tests/, solution/), graded by swe-env')
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .requiredOption('--out <dir>', 'one directory per task is written under it')
    .option('--instance <id>', 'only this instance (repeatable; a trailing * matches a prefix)', collect)
    .option('--image-template <t>', 'image name per task')
    .action(async (o: ExportOptions) => {
      const written = await exportHarbor(o);
      for (const dir of written) process.stdout.write(`${dir}\n`);
    });
}
