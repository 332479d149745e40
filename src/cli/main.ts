#!/usr/bin/env node
import { Command, InvalidArgumentError as CommanderArgError } from 'commander';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../common/logger.js';
import { messageOf } from '../common/errors.js';
import { packageRoot } from '../common/paths.js';
import { Semaphore } from '../common/semaphore.js';
import { SweEnvClient } from '../client/client.js';
import { Grader } from '../reward/grader.js';
import { evalPlan } from '../reward/eval-plan/plan.js';
import { harnessEvalScript } from '../reward/eval-plan/render.js';
import type { InstallRerun } from '../reward/eval-plan/install-policy.js';
import type { HarnessGeneration } from '../reward/harness/log-parsers.js';
import type { RewardRule } from '../reward/report.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { startServer } from '../server/app.js';
import { compileConfig, type ShutdownMode } from '../server/config.js';
import { buildDemoImages } from '../tasks/demo/demo-images.js';
import { readDemoSources } from '../tasks/demo/demo-sources.js';
import { makeDemoDataset } from '../tasks/demo/make-dataset.js';
import { loadTaskFile, loadTaskFiles } from '../tasks/loader.js';
import { evaluatePrediction, loadPredictions, validateTask, validationTable, writeEvalReports } from '../reward/batch.js';
import { buildTaskImages } from '../tasks/image-build.js';
import type { Task } from '../tasks/task.js';
import { mapPool, Progress } from './progress.js';
import { runShell } from './shell.js';
import { registerTrajectoryCommands } from './trajectories-command.js';
import { registerCollectCommand } from './collect-command.js';

const DEMO_DIR = join(packageRoot(), 'tasks', 'demo');
const DEMO_TASKS = join(DEMO_DIR, 'tasks.jsonl');
const DEFAULT_BASE_IMAGE = 'swe-env/base:latest';

function number(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new CommanderArgError(`not a number: ${value}`);
  return n;
}

/** SWE_ENV_STATE_DIR, else the XDG state directory's swe-env folder. */
function defaultStateDir(): string {
  const env = process.env['SWE_ENV_STATE_DIR'];
  if (env) return env;
  return join(process.env['XDG_STATE_HOME'] || join(homedir(), '.local', 'state'), 'swe-env');
}

/** SWE_ENV_TRAJECTORY_DIR, else the XDG data directory's swe-env/trajectories. */
function defaultTrajectoryDir(): string {
  const env = process.env['SWE_ENV_TRAJECTORY_DIR'];
  if (env) return env;
  return join(process.env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share'), 'swe-env', 'trajectories');
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const program = new Command('swe-env').description('gRPC environment server for RL on software-engineering tasks');

program
  .command('serve')
  .description('serve episodes over gRPC')
  .option('--tasks <file>', 'task file (JSON array or JSONL), repeatable', collect)
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0 picks a free one)', number, 50051)
  .option('--server-id <id>', 'labels this server\'s containers; a restart with this id takes over the episodes of its last run', 'default')
  .option('--state-dir <dir>', 'where episode records are kept so a restart goes on with live episodes (under DIR/SERVER-ID)', defaultStateDir())
  .option('--no-state', 'keep no episode records: a restart removes the last run\'s containers and its episodes are lost')
  .option('--trajectory-dir <dir>', 'where every episode\'s trajectory is recorded (under DIR/SERVER-ID/DAY/)', defaultTrajectoryDir())
  .option('--no-trajectories', 'record no trajectories')
  .option('--trajectory-max-gb <n>', 'past this size of the trajectory directory new records are dropped (counted), episodes go on', number)
  .option('--trajectory-max-episode-mb <n>', 'past this size of one trajectory its further steps are dropped', number)
  .option('--on-shutdown <mode>', 'on SIGTERM: drain (end every episode, remove its container) or leave (keep live episodes for the next start)', 'drain')
  .option('--adoption-grace <s>', 'after a restart, an episode of the last run that no client calls within this long is ended and its container removed (default 300)', number)
  .option('--max-episodes <n>', 'live episodes at most', number)
  .option('--max-starts <n>', 'container starts at once at most', number)
  .option('--max-gradings <n>', 'gradings (each in its own container) at once at most; more wait, Evaluate until its deadline', number)
  .option('--memory-mb <n>', 'memory limit per sandbox', number)
  .option('--cpus <n>', 'CPUs per sandbox', number)
  .option('--pids <n>', 'process limit per sandbox', number)
  .option('--disk-mb <n>', 'disk quota per sandbox\'s writable layer (0: none); over it the episode ends with reward 0', number)
  .option('--disk-check-interval <s>', 'how often the disk watchdog measures each sandbox', number)
  .option('--min-free-mb <n>', 'Reset is RESOURCE_EXHAUSTED while the engine\'s disk has less free space', number)
  .option('--max-steps <n>', 'default steps per episode', number)
  .option('--command-timeout <s>', 'default timeout of one bash call', number)
  .option('--episode-timeout <s>', 'default wall-clock limit of an episode', number)
  .option('--idle-timeout <s>', 'an episode with no call for this long expires', number)
  .option('--output-limit <bytes>', 'default cap on one observation', number)
  .option('--test-timeout <s>', 'limit on the test run when grading', number)
  .option('--max-warm <n>', 'sandboxes kept ready by Prewarm over all tasks at most (0: off)', number)
  .option('--warm-memory-mb <n>', 'memory the warm sandboxes may hold in all', number)
  .option('--warm-ttl <s>', 'a warm sandbox no Reset took within this is removed', number)
  .option('--metrics-port <port>', 'serve Prometheus metrics at http://HOST:PORT/metrics (0: any free port)', number)
  .option('--metrics-host <host>', 'address of the metrics endpoint', '127.0.0.1')
  .option('--oci-runtime <name>', 'OCI runtime for sandboxes, as registered with the engine (e.g. crun); default the engine\'s')
  .option('--docker-socket <path>', 'the container engine\'s socket (default: DOCKER_HOST or /var/run/docker.sock)')
  .option('--shutdown-grace <s>', 'on SIGTERM: refuse new episodes, let running calls finish this long, then remove every container', number)
  .option('--install-rerun <when>', "re-run the plan's install after the patch: when-needed (default), always (the harness's way), never")
  .option('--reward-rule <rule>', "the verdict the reward follows: swe-env (default, strict) or harness (the official harness's)")
  .option('--harness-generation <g>', 'the swebench grading the harness verdict reproduces: 5 (default) or 4.1')
  .option('--image-template <t>', 'image name per task, e.g. sweb.eval.x86_64.{id_lower}:latest')
  .option('--auth-token-file <file>', 'every call must carry this bearer token (or set SWE_ENV_AUTH_TOKEN); required beyond loopback')
  .option('--tls-cert <file>', 'TLS server certificate (PEM); required beyond loopback')
  .option('--tls-key <file>', 'TLS server key (PEM)')
  .option('--tls-client-ca <file>', 'mutual TLS: clients must present a certificate signed by this CA')
  .option('--log-level <level>', 'pino log level', 'info')
  .action(async (o: Record<string, unknown>) => {
    const config = compileConfig({
      security: {
        authTokenFile: o['authTokenFile'] as string | undefined,
        authToken: process.env['SWE_ENV_AUTH_TOKEN'] || undefined,
        tlsCertFile: o['tlsCert'] as string | undefined,
        tlsKeyFile: o['tlsKey'] as string | undefined,
        tlsClientCaFile: o['tlsClientCa'] as string | undefined,
      },
      host: o['host'] as string,
      port: o['port'] as number,
      serverId: o['serverId'] as string,
      taskFiles: (o['tasks'] as string[] | undefined) ?? [DEMO_TASKS],
      imageTemplate: o['imageTemplate'] as string | undefined,
      maxEpisodes: o['maxEpisodes'] as number | undefined,
      maxConcurrentStarts: o['maxStarts'] as number | undefined,
      maxGradings: o['maxGradings'] as number | undefined,
      testTimeoutS: o['testTimeout'] as number | undefined,
      shutdownGraceS: o['shutdownGrace'] as number | undefined,
      dockerSocket: o['dockerSocket'] as string | undefined,
      ociRuntime: o['ociRuntime'] as string | undefined,
      metricsPort: o['metricsPort'] as number | undefined,
      maxWarm: o['maxWarm'] as number | undefined,
      warmMemoryBytes: o['warmMemoryMb'] === undefined ? undefined : (o['warmMemoryMb'] as number) * 1024 * 1024,
      warmTtlS: o['warmTtl'] as number | undefined,
      metricsHost: o['metricsHost'] as string,
      stateDir: o['state'] === false ? undefined : (o['stateDir'] as string),
      onShutdown: o['onShutdown'] as ShutdownMode,
      adoptionGraceS: o['adoptionGrace'] as number | undefined,
      trajectoryDir: o['trajectories'] === false ? undefined : (o['trajectoryDir'] as string),
      trajectoryMaxBytes: o['trajectoryMaxGb'] === undefined ? undefined : Math.round((o['trajectoryMaxGb'] as number) * 1024 ** 3),
      trajectoryMaxEpisodeBytes: o['trajectoryMaxEpisodeMb'] === undefined ? undefined : Math.round((o['trajectoryMaxEpisodeMb'] as number) * 1024 ** 2),
      installRerun: o['installRerun'] as InstallRerun | undefined,
      rewardRule: o['rewardRule'] as RewardRule | undefined,
      harnessGeneration: o['harnessGeneration'] as HarnessGeneration | undefined,
      logLevel: o['logLevel'] as string,
      limits: {
        memoryBytes: o['memoryMb'] === undefined ? undefined : (o['memoryMb'] as number) * 1024 * 1024,
        nanoCpus: o['cpus'] === undefined ? undefined : Math.round((o['cpus'] as number) * 1e9),
        pidsLimit: o['pids'] as number | undefined,
        diskBytes: o['diskMb'] === undefined ? undefined : (o['diskMb'] as number) * 1024 * 1024,
      },
      diskCheckIntervalS: o['diskCheckInterval'] as number | undefined,
      minHostFreeBytes: o['minFreeMb'] === undefined ? undefined : (o['minFreeMb'] as number) * 1024 * 1024,
      defaults: {
        maxSteps: o['maxSteps'] as number | undefined,
        commandTimeoutS: o['commandTimeout'] as number | undefined,
        episodeTimeoutS: o['episodeTimeout'] as number | undefined,
        idleTimeoutS: o['idleTimeout'] as number | undefined,
        outputLimitBytes: o['outputLimit'] as number | undefined,
      },
    });
    const server = await startServer(config);
    process.stdout.write(`swe-env listening on ${server.address} with ${server.tasks.size} tasks${server.metricsPort === undefined ? '' : `; metrics on ${config.metricsHost}:${server.metricsPort}/metrics`}\n`);
    const stop = (): void => {
      server.shutdown().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('tasks')
  .description('list the tasks of task files')
  .option('--tasks <file>', 'task file, repeatable', collect)
  .action(async (o: { tasks?: string[] }) => {
    for (const file of o.tasks ?? [DEMO_TASKS]) {
      const { tasks, problems } = await loadTaskFile(file);
      for (const t of tasks) process.stdout.write(`${t.id}\t${t.repo}\t${t.failToPass.length} F2P\t${t.passToPass.length} P2P\t${t.image}\n`);
      for (const p of problems) process.stderr.write(`${p.file} ${p.where} ${p.field}: ${p.message}\n`);
    }
  });

program
  .command('health')
  .description('exit 0 when the server answers (through its token and TLS) and is not draining: for readiness and liveness probes')
  .option('--server <address>', 'server address', '127.0.0.1:50051')
  .option('--token-file <file>', 'bearer token for the server (or set SWE_ENV_AUTH_TOKEN)')
  .option('--ca <file>', 'CA of the server\'s TLS certificate (PEM); TLS is used when given')
  .option('--timeout <s>', 'seconds to wait for the answer', number, 5)
  .action(async (o: { server: string; tokenFile?: string; ca?: string; timeout: number }) => {
    const token = o.tokenFile ? readFileSync(o.tokenFile, 'utf8').trim() : process.env['SWE_ENV_AUTH_TOKEN'];
    const client = new SweEnvClient(o.server, {}, { ...(token ? { token } : {}), ...(o.ca ? { ca: readFileSync(o.ca) } : {}) });
    try {
      const info = await client.getServerInfo({ timeoutS: o.timeout });
      process.stdout.write(`${info.serverId} ${info.version}: ${info.liveEpisodes}/${info.maxEpisodes} episodes, ${info.gradingsRunning}/${info.maxGradings} gradings${info.draining ? ', draining' : ''}\n`);
      if (info.draining) process.exitCode = 1;
    } finally {
      client.dispose();
    }
  });

program
  .command('plan <taskId>')
  .description("print a task's eval plan: where its facts come from, and the harness's eval.sh it amounts to")
  .option('--tasks <file>', 'task file, repeatable', collect)
  .action(async (taskId: string, o: { tasks?: string[] }) => {
    const tasks = await loadAll(o.tasks ?? [DEMO_TASKS]);
    const task = tasks.find((t) => t.id === taskId);
    if (!task) throw new Error(`no task ${taskId} in ${(o.tasks ?? [DEMO_TASKS]).join(', ')}`);
    const plan = evalPlan(task);
    process.stdout.write(`# source: ${plan.source}; harness parser: ${plan.harnessParser}\n`);
    for (const note of plan.notes) process.stdout.write(`# note: ${note}\n`);
    process.stdout.write(harnessEvalScript(plan, task));
  });

program
  .command('shell <taskId>')
  .description('step an episode by hand: type commands, :submit to grade, :quit to leave')
  .option('--server <address>', 'server address', '127.0.0.1:50051')
  .option('--token-file <file>', 'bearer token for the server (or set SWE_ENV_AUTH_TOKEN)')
  .option('--ca <file>', 'CA of the server\'s TLS certificate (PEM); TLS is used when given')
  .action(async (taskId: string, o: { server: string; tokenFile?: string; ca?: string }) => {
    const token = o.tokenFile ? readFileSync(o.tokenFile, 'utf8').trim() : process.env['SWE_ENV_AUTH_TOKEN'];
    await runShell(o.server, taskId, { ...(token ? { token } : {}), ...(o.ca ? { ca: readFileSync(o.ca) } : {}) });
  });

const images = program.command('images').description('task images');
images
  .command('build-demo')
  .description('build the demo tasks\' images on the base image (offline)')
  .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
  .action(async (o: { base: string }) => {
    const logger = createLogger();
    const provider = new DockerSandboxProvider('image-build');
    const built = await buildDemoImages(provider, await readDemoSources(DEMO_DIR), o.base, logger);
    process.stdout.write(`${built.length} demo task images ready\n`);
  });

images
  .command('base')
  .description('build a base image (offline, from the machine\'s apt sources) with more Debian packages or local wheels')
  .option('--packages <list>', 'more Debian packages, comma-separated')
  .option('--wheels <dir>', 'a directory of .whl files to install into the image\'s python (no index)')
  .action(async (o: { packages?: string; wheels?: string }) => {
    const args = [join(packageRoot(), 'scripts', 'build-base-image.sh')];
    if (o.packages) args.push('--packages', o.packages);
    if (o.wheels) args.push('--wheels', o.wheels);
    const image = await runScript('bash', args);
    process.stdout.write(`${image.trim()}\n(use it with: swe-env images build --base ${image.trim()} ...)\n`);
  });

images
  .command('build')
  .description('build each task\'s image from a local git repository (offline): /testbed at base_commit, no later history')
  .requiredOption('--tasks <file>', 'task file, repeatable', collect)
  .requiredOption('--repo <dir>', 'git repository (bare or not, a snapshot will do) holding the base commits, or a folder of them named owner__name')
  .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
  .option('--install <cmd>', 'install step for tasks whose record has none')
  .option('--instance <id>', 'only this task (repeatable; a trailing * matches a prefix)', collect)
  .option('--image-template <t>', 'image name per task')
  .option('--concurrency <n>', 'images built at once', number, 2)
  .option('--force', 'rebuild even when up to date')
  .action(async (o: { tasks: string[]; repo: string; base: string; install?: string; instance?: string[]; imageTemplate?: string; concurrency: number; force?: boolean }) => {
    const logger = createLogger('warn');
    const tasks = selectInstances(await loadAll(o.tasks, o.imageTemplate), o.instance);
    const progress = new Progress(tasks.length, 'images');
    const results = await buildTaskImages({
      provider: new DockerSandboxProvider('image-build'),
      tasks,
      repoDir: o.repo,
      baseImage: o.base,
      concurrency: o.concurrency,
      logger,
      ...(o.install ? { install: o.install } : {}),
      ...(o.force ? { force: true } : {}),
      onProgress: (r) => progress.tick(`${r.status} ${r.taskId}`),
    });
    for (const r of results) {
      process.stdout.write(`${r.status.padEnd(11)} ${r.durationS.toFixed(1).padStart(7)}s  ${r.image}${r.error ? `  ${r.error.split('\n')[0]}` : ''}\n`);
    }
    if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
  });

program
  .command('eval')
  .description('grade SWE-bench predictions and write a report in the harness\'s shape')
  .requiredOption('--tasks <file>', 'task file, repeatable', collect)
  .requiredOption('--predictions <file>', 'predictions (instance_id, model_patch, model_name_or_path): JSON or JSONL')
  .option('--out <dir>', 'report directory', 'evaluation_results')
  .option('--run-id <id>', 'name of this run', 'swe-env')
  .option('--concurrency <n>', 'gradings at once', number, 2)
  .option('--test-timeout <s>', 'limit on each test run', number, 1800)
  .option('--image-template <t>', 'image name per task')
  .option('--reward-rule <rule>', "whose verdict decides resolved: harness (default here, comparable with official results) or swe-env", 'harness')
  .option('--install-rerun <when>', "re-run the plan's install after the patch: when-needed, always (default here, the harness's way), never", 'always')
  .action(async (o: EvalOptions & { predictions: string; out: string; runId: string }) => {
    const tasks = await loadAll(o.tasks, o.imageTemplate);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const predictions = await loadPredictions(o.predictions);
    const grader = offlineGrader(o.concurrency, o.testTimeout, { rewardRule: o.rewardRule, installRerun: o.installRerun });
    const progress = new Progress(predictions.length, 'graded');
    const outcomes = await mapPool(predictions, o.concurrency, async (p) => {
      const outcome = await evaluatePrediction(grader, byId, p);
      progress.tick(`${p.instanceId} ${outcome.error ? 'error' : outcome.report?.resolved ? 'resolved' : 'unresolved'}`);
      return outcome;
    });
    const { file, summary } = await writeEvalReports(o.out, o.runId, tasks.length, outcomes);
    process.stdout.write(
      `resolved ${summary.resolved_instances}, unresolved ${summary.unresolved_instances}, errors ${summary.error_instances} of ${summary.submitted_instances} submitted; report: ${file}\n`,
    );
  });

program
  .command('validate')
  .description('check every task: the gold patch must score 1 and the empty patch 0')
  .requiredOption('--tasks <file>', 'task file, repeatable', collect)
  .option('--concurrency <n>', 'tasks at once', number, 2)
  .option('--test-timeout <s>', 'limit on each test run', number, 1800)
  .option('--image-template <t>', 'image name per task')
  .action(async (o: { tasks: string[]; concurrency: number; testTimeout: number; imageTemplate?: string }) => {
    const tasks = await loadAll(o.tasks, o.imageTemplate);
    const grader = offlineGrader(o.concurrency, o.testTimeout);
    const progress = new Progress(tasks.length, 'validated');
    const rows = await mapPool(tasks, o.concurrency, async (task) => {
      const row = await validateTask(grader, task);
      progress.tick(`${task.id} ${row.ok ? 'ok' : 'FAILS'}`);
      return row;
    });
    process.stdout.write(`${validationTable(rows)}\n`);
    if (rows.some((r) => !r.ok)) process.exitCode = 1;
  });

program
  .command('make-demo-dataset')
  .description('(developers) regenerate tasks/demo/tasks.jsonl from tasks/demo sources')
  .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
  .action(async (o: { base: string }) => {
    const logger = createLogger();
    const provider = new DockerSandboxProvider('make-demo-dataset');
    const grader = new Grader(provider, new Semaphore(2), { limits: compileConfig().limits, testTimeoutS: 300, logLimitBytes: 4 * 1024 * 1024, maxGradings: 2 }, logger);
    const n = await makeDemoDataset({ demoDir: DEMO_DIR, outFile: DEMO_TASKS, baseImage: o.base, provider, grader, logger });
    process.stdout.write(`wrote ${n} tasks to ${DEMO_TASKS}\n`);
  });

/** --instance filters: exact ids, or prefixes written with a trailing `*`. */
function selectInstances(tasks: Task[], patterns: readonly string[] | undefined): Task[] {
  if (!patterns?.length) return tasks;
  const match = (id: string) => patterns.some((p) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));
  const chosen = tasks.filter((t) => match(t.id));
  if (chosen.length === 0) throw new Error(`no task matches --instance ${patterns.join(', ')}`);
  return chosen;
}

/** Runs a set-up script, its progress on stderr, and returns what it prints on stdout. */
function runScript(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

function loadAll(files: readonly string[], imageTemplate?: string): Promise<Task[]> {
  return loadTaskFiles(files, imageTemplate ? { imageTemplate } : {}, (p) =>
    process.stderr.write(`skipped: ${p.file} ${p.where} ${p.field}: ${p.message}\n`),
  );
}

interface EvalOptions {
  tasks: string[];
  concurrency: number;
  testTimeout: number;
  imageTemplate?: string;
  rewardRule: RewardRule;
  installRerun: InstallRerun;
}

function offlineGrader(concurrency: number, testTimeoutS: number, rules: { rewardRule?: RewardRule; installRerun?: InstallRerun } = {}): Grader {
  const logger = createLogger('warn');
  const provider = new DockerSandboxProvider(`offline-${process.pid}`);
  // compileConfig checks the rule names as the server does.
  const config = compileConfig({ testTimeoutS, ...rules });
  return new Grader(
    provider,
    new Semaphore(Math.max(1, concurrency)),
    {
      limits: config.limits,
      testTimeoutS,
      logLimitBytes: 8 * 1024 * 1024,
      maxGradings: Math.max(1, concurrency),
      installRerun: config.installRerun,
      rewardRule: config.rewardRule,
      harnessGeneration: config.harnessGeneration,
    },
    logger,
  );
}

registerTrajectoryCommands(program);
registerCollectCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`swe-env: ${messageOf(error)}\n`);
  process.exit(1);
});
