import { InvalidArgumentError, type Command } from 'commander';
import { EXPORT_FORMATS, exportRows, loadTrajectories, selectTrajectories, writeRows, type ExportFormat } from '../trajectories/export.js';
import { withFullConversations } from '../trajectories/lineage.js';
import { serveViewer, writeStaticReport } from '../trajectories/viewer/viewer-server.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`not a positive whole number: ${value}`);
  return n;
}

export function registerTrajectoryCommands(program: Command): void {
  const trajectories = program.command('trajectories').description('recorded episodes: export them for training, look at them');

  trajectories
    .command('export <dirs...>')
    .description(
      'write trajectories as SFT chat data, verifier data (trajectory + outcome label) or SWE-bench predictions; .jsonl or .parquet',
    )
    .requiredOption('--format <format>', `one of ${EXPORT_FORMATS.join(', ')}`)
    .requiredOption('--out <file>', 'output file (.jsonl, or .parquet)')
    .option('--resolved-only', 'only episodes whose grading resolved the task')
    .option('--dataset <name>', 'only episodes of this dataset')
    .option('--max-turns <n>', 'only episodes of at most this many steps', positiveInt)
    .option('--per-task <k>', 'at most k episodes per task (predictions: 1 unless given)', positiveInt)
    .option('--model-name <name>', 'model_name_or_path / model to write (default: the one recorded)')
    .option(
      '--unflagged-only',
      "leave out episodes whose grading raised any integrity or audit flag (the report's integrity_flags, audit_flags)",
    )
    .option('--flag <kind>', 'only episodes with a flag of this kind: integrity, network, git, subprocess, runner-internals')
    .option(
      '--lineage <mode>',
      "a fork child as its 'full' conversation (its ancestors' steps before the branch, then its own) or its own steps only, as a 'tree' node naming its parent",
      'full',
    )
    .action(
      async (
        dirs: string[],
        o: {
          format: string;
          out: string;
          resolvedOnly?: boolean;
          dataset?: string;
          maxTurns?: number;
          perTask?: number;
          modelName?: string;
          unflaggedOnly?: boolean;
          flag?: string;
          lineage: string;
        },
      ) => {
        if (!(EXPORT_FORMATS as readonly string[]).includes(o.format))
          throw new InvalidArgumentError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
        if (o.lineage !== 'full' && o.lineage !== 'tree') throw new InvalidArgumentError("--lineage must be 'full' or 'tree'");
        const format = o.format as ExportFormat;
        const loaded = await loadTrajectories(dirs);
        const all = o.lineage === 'full' ? await withFullConversations(loaded) : loaded;
        const chosen = selectTrajectories(all, {
          ...(o.resolvedOnly ? { resolvedOnly: true } : {}),
          ...(o.dataset ? { dataset: o.dataset } : {}),
          ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
          ...(o.unflaggedOnly ? { unflaggedOnly: true } : {}),
          ...(o.flag ? { flag: o.flag } : {}),
          // A predictions file holds one patch per instance.
          ...(o.perTask ? { perTask: o.perTask } : format === 'predictions' ? { perTask: 1 } : {}),
        });
        await writeRows(o.out, exportRows(chosen, format, o.modelName ?? ''));
        const resolved = chosen.filter((t) => t.end?.resolved).length;
        process.stdout.write(`${chosen.length} of ${all.length} trajectories exported as ${format} to ${o.out} (${resolved} resolved)\n`);
      },
    );

  trajectories
    .command('view <dirs...>')
    .description('look at trajectories in a browser: a local page listing episodes, each shown as a conversation with its test report')
    .option('--port <port>', 'port of the local page (0: any free one)', positiveIntOrZero, 8642)
    .option('--host <host>', 'address of the local page', '127.0.0.1')
    .option('--html <file>', 'write one static HTML report instead of serving')
    .action(async (dirs: string[], o: { port: number; host: string; html?: string }) => {
      if (o.html) {
        const n = await writeStaticReport(dirs, o.html);
        process.stdout.write(`${n} trajectories written to ${o.html}\n`);
        return;
      }
      const viewer = await serveViewer(dirs, o.host, o.port);
      process.stdout.write(`trajectory viewer on http://${o.host}:${viewer.port}/\n`);
    });
}

function positiveIntOrZero(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return n;
}
