import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { collect } from '../trajectories/collect/collect.js';
import { TOOL_FORMATS, type ToolFormat } from '../trajectories/collect/tool-format.js';
import { Progress } from './progress.js';
import { Interrupt } from './interrupt.js';
import { clientSecurity, readOptionFile } from './options.js';
import { loadTrajectories } from '../trajectories/export.js';
import { InvalidArgumentError as UsageError } from '../common/errors.js';
import { join } from 'node:path';
import { packageRoot } from '../common/paths.js';
import { loadTaskFile } from '../tasks/loader.js';
import { startScriptedModel } from '../trajectories/collect/scripted-model.js';

function num(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`not a number >= 0: ${value}`);
  return n;
}

export function registerCollectCommand(program: Command): void {
  program
    .command('demo-model')
    .description(
      'a stand-in for a model server (OpenAI-compatible, scripted): fixes the --solve tasks with their gold patch, gives up on the others; to try collect without a GPU',
    )
    .option('--tasks <file>', 'task file (the demo tasks by default)')
    .option('--solve <id>', 'a task the script fixes (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--host <host>', 'address', '127.0.0.1')
    .option('--port <port>', 'port', num, 8000)
    .action(async (o: { tasks?: string; solve?: string[]; host: string; port: number }) => {
      const { tasks } = await loadTaskFile(o.tasks ?? join(packageRoot(), 'tasks', 'demo', 'tasks.jsonl'));
      const model = await startScriptedModel(tasks, new Set(o.solve ?? []), o.host, o.port);
      process.stdout.write(`scripted model on ${model.url} (solves: ${(o.solve ?? []).join(', ') || 'none'})\n`);
    });

  program
    .command('collect')
    .description('sample trajectories with any OpenAI-compatible chat model (vLLM, SGLang) over tasks x k samples; resumable')
    .requiredOption('--endpoint <url>', 'the chat API base URL, e.g. http://localhost:8000/v1')
    .requiredOption('--model <name>', 'model name to ask for')
    .requiredOption('--out <dir>', 'writes DIR/trajectories/ and DIR/predictions.jsonl; a re-run skips samples already done')
    .option('--server <host:port>', 'the swe-env server', '127.0.0.1:50051')
    .option('--task <id>', 'a task to run (repeatable; default: every task the server serves)', (v: string, p: string[] = []) => [...p, v])
    .option('--dataset <name>', 'only tasks of this dataset')
    .option('-k, --samples <k>', 'samples per task', num, 1)
    .option('--temperature <t>', 'sampling temperature', num, 0.7)
    .option('--max-turns <n>', 'model turns (and steps) per sample', num, 50)
    .option('--max-tokens <n>', 'max_tokens per model call', num)
    .option('--concurrency <n>', 'samples at once', num, 8)
    .option(
      '--run <name>',
      "names this collection (episode ids derive from it: the same name resumes); default: the run already in --out, else one named after --out's path",
    )
    .option(
      '--tool-format <f>',
      `how the model calls tools: ${TOOL_FORMATS.join(' (native tool calls) or ')} (a fenced bash block)`,
      'openai',
    )
    .option('--system-prompt <file>', 'a system message before the task')
    .option(
      '--instance-template <file>',
      "the first user message: {{prompt}} (the server's prompt, the default), {{problem_statement}}, {{repo}}, {{task_id}}, {{workdir}}",
    )
    .option('--infra-retries <n>', 'samples the environment failed are run again this often, then marked infra_error', num, 2)
    .option('--model-timeout <s>', 'limit on one model call', num, 600)
    .option('--token-file <file>', "the swe-env server's bearer token (or SWE_ENV_AUTH_TOKEN)")
    .option('--ca <file>', "CA of the swe-env server's TLS certificate")
    .action(async (o: Record<string, unknown>) => {
      const toolFormat = o['toolFormat'] as string;
      if (!(TOOL_FORMATS as readonly string[]).includes(toolFormat))
        throw new InvalidArgumentError(`--tool-format must be one of ${TOOL_FORMATS.join(', ')}`);
      const tasks = (o['task'] as string[] | undefined) ?? [];
      const samples = Math.max(1, Math.floor(o['samples'] as number));
      const out = o['out'] as string;
      const run = (o['run'] as string | undefined) ?? (await defaultRun(out));
      let progress: Progress | undefined;
      const interrupt = new Interrupt(
        'closing the running samples (the next run does them again) and writing the predictions of the finished ones',
      );
      try {
        const tally = await collect({
          server: o['server'] as string,
          security: clientSecurity({
            ...(o['tokenFile'] ? { tokenFile: o['tokenFile'] as string } : {}),
            ...(o['ca'] ? { ca: o['ca'] as string } : {}),
          }),
          endpoint: o['endpoint'] as string,
          apiKey: process.env['OPENAI_API_KEY'] ?? '',
          model: o['model'] as string,
          taskIds: tasks,
          dataset: (o['dataset'] as string | undefined) ?? '',
          samples,
          temperature: o['temperature'] as number,
          maxTurns: Math.max(1, Math.floor(o['maxTurns'] as number)),
          ...(o['maxTokens'] ? { maxTokens: o['maxTokens'] as number } : {}),
          concurrency: Math.max(1, Math.floor(o['concurrency'] as number)),
          out,
          run,
          toolFormat: toolFormat as ToolFormat,
          ...(o['systemPrompt'] ? { systemPrompt: readOptionFile('--system-prompt', o['systemPrompt'] as string).toString('utf8') } : {}),
          ...(o['instanceTemplate']
            ? { instanceTemplate: readOptionFile('--instance-template', o['instanceTemplate'] as string).toString('utf8') }
            : {}),
          infraRetries: Math.floor(o['infraRetries'] as number),
          modelTimeoutS: o['modelTimeout'] as number,
          signal: interrupt.signal,
          onStart: (t) => {
            if (t.skipped > 0)
              process.stderr.write(
                `resuming run ${run} in ${out}: ${t.skipped} of ${t.total} samples done before, ${t.total - t.skipped} to go\n`,
              );
            else process.stderr.write(`run ${run}: ${t.total} samples into ${out}\n`);
            progress = new Progress(t.total - t.skipped, 'samples');
            progress.show('starting');
          },
          onSample: (line, t) => {
            const done = t.resolved + t.unresolved;
            progress?.tick(
              `${line} · resolved ${t.resolved}/${done}${t.infra ? ` · infra ${t.infra}` : ''}${t.modelErrors ? ` · model errors ${t.modelErrors}` : ''}`,
            );
          },
        });
        progress?.end();
        process.stdout.write(
          `collect${interrupt.interrupted ? ' (interrupted)' : ''}: ${tally.total} samples: ${tally.resolved} resolved, ${tally.unresolved} unresolved, ${tally.infra} infra_error (not counted), ${tally.modelErrors} model errors, ${tally.skipped} done before` +
            `${interrupt.interrupted ? `, ${tally.total - tally.skipped - tally.resolved - tally.unresolved - tally.infra - tally.modelErrors} left for the next run` : ''}; trajectories in ${out}/trajectories, predictions in ${out}/predictions.jsonl\n`,
        );
        if (interrupt.interrupted) {
          process.stdout.write(`run the same command again to go on (run ${run})\n`);
          process.exitCode = interrupt.exitCode;
        } else if (tally.modelErrors > 0 || tally.infra > 0) process.exitCode = 2;
      } finally {
        interrupt.dispose();
      }
    });
}

/**
 * The run an --out directory already holds (so a re-run there resumes it), else one named after
 * the directory's path: two collections into two directories never share episode ids on a server.
 */
async function defaultRun(out: string): Promise<string> {
  const runs = new Set(
    (await loadTrajectories([join(out, 'trajectories')]).catch(() => []))
      .map((t) => t.header.collect?.['run'])
      .filter((r): r is string => typeof r === 'string'),
  );
  if (runs.size > 1) throw new UsageError(`${out} holds the runs ${[...runs].join(', ')}: say which to go on with --run NAME`);
  const [only] = runs;
  return only ?? `collect-${createHash('sha256').update(resolve(out)).digest('hex').slice(0, 10)}`;
}
