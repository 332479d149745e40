import type { Command } from 'commander';
import { InvalidArgumentError } from '../common/errors.js';
import type { InstallRerun } from '../reward/eval-plan/install-policy.js';
import { GRADING_NETWORK_HELP, type GradingNetwork } from '../reward/grading/grader-options.js';
import type { HarnessGeneration } from '../languages/index.js';
import type { RewardRule } from '../reward/report.js';
import type { SandboxIoLimits } from '../sandbox/sandbox.js';
import { startServer } from '../server/app.js';
import { DEFAULTS as D, compileConfig, type ShutdownMode } from '../server/config.js';

const MB = 1024 * 1024;
import { addCacheOptions, addPullOptions, imageSupplyInput } from './image-supply-options.js';
import { DEMO_TASKS, collect, defaultStateDir, defaultTrajectoryDir, number } from './options.js';

export function registerServeCommand(program: Command): void {
  const serve = program
    .command('serve')
    .description('serve episodes over gRPC')
    .option('--tasks <file>', 'task file (JSON array or JSONL), repeatable', collect)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', number, 50051)
    .option(
      '--server-id <id>',
      "labels this server's containers; a restart with this id takes over the episodes of its last run",
      'default',
    )
    .option(
      '--state-dir <dir>',
      'where episode records are kept so a restart goes on with live episodes (under DIR/SERVER-ID)',
      defaultStateDir(),
    )
    .option('--no-state', "keep no episode records: a restart removes the last run's containers and its episodes are lost")
    .option('--trajectory-dir <dir>', "where every episode's trajectory is recorded (under DIR/SERVER-ID/DAY/)", defaultTrajectoryDir())
    .option('--no-trajectories', 'record no trajectories')
    .option(
      '--trajectory-max-gb <n>',
      `past this size of the trajectory directory new records are dropped (counted), episodes go on (default ${D.trajectoryMaxBytes / 1024 ** 3})`,
      number,
    )
    .option(
      '--trajectory-max-episode-mb <n>',
      `past this size of one trajectory its further steps are dropped (default ${D.trajectoryMaxEpisodeBytes / MB})`,
      number,
    )
    .option(
      '--on-shutdown <mode>',
      'on SIGTERM: drain (end every episode, remove its container) or leave (keep live episodes for the next start)',
      'drain',
    )
    .option(
      '--adoption-grace <s>',
      `after a restart, an episode of the last run that no client calls within this long is ended and its container removed (default ${D.adoptionGraceS})`,
      number,
    )
    .option('--max-episodes <n>', `live episodes at most (default ${D.maxEpisodes})`, number)
    .option('--max-starts <n>', `container starts at once at most (default ${D.maxConcurrentStarts})`, number)
    .option(
      '--max-gradings <n>',
      `gradings (each in its own container) at once at most; more wait, Evaluate until its deadline (default ${D.maxGradings})`,
      number,
    )
    .option('--memory-mb <n>', `memory limit per sandbox (default ${D.limits.memoryBytes / MB})`, number)
    .option('--cpus <n>', `CPUs per sandbox (default ${D.limits.nanoCpus / 1e9})`, number)
    .option('--pids <n>', `process limit per sandbox (default ${D.limits.pidsLimit})`, number)
    .option(
      '--disk-mb <n>',
      `disk quota per sandbox's writable layer (0: none); over it the episode ends with reward 0 (default ${D.limits.diskBytes / MB})`,
      number,
    )
    .option('--io-device <path>', "the block device of the engine's storage (its host's path, e.g. /dev/vda), for the --io-* limits")
    .option('--io-read-mbps <n>', 'reads per sandbox on --io-device, MB/s at most (default: no limit)', number)
    .option('--io-write-mbps <n>', 'writes per sandbox on --io-device, MB/s at most (default: no limit)', number)
    .option('--io-read-iops <n>', 'read operations per sandbox on --io-device per second at most (default: no limit)', number)
    .option('--io-write-iops <n>', 'write operations per sandbox on --io-device per second at most (default: no limit)', number)
    .option('--disk-check-interval <s>', `how often the disk watchdog measures each sandbox (default ${D.diskCheckIntervalS})`, number)
    .option(
      '--min-free-mb <n>',
      `Reset is RESOURCE_EXHAUSTED while the engine's disk has less free space (default ${D.minHostFreeBytes / MB})`,
      number,
    )
    .option('--max-steps <n>', `default steps per episode (default ${D.defaults.maxSteps})`, number)
    .option('--command-timeout <s>', `default timeout of one bash call (default ${D.defaults.commandTimeoutS})`, number)
    .option('--episode-timeout <s>', `default wall-clock limit of an episode (default ${D.defaults.episodeTimeoutS})`, number)
    .option('--idle-timeout <s>', `an episode with no call for this long expires (default ${D.defaults.idleTimeoutS})`, number)
    .option('--output-limit <bytes>', `default cap on one observation (default ${D.defaults.outputLimitBytes})`, number)
    .option('--test-timeout <s>', `limit on the test run when grading (default ${D.testTimeoutS})`, number)
    .option('--max-warm <n>', `sandboxes kept ready by Prewarm over all tasks at most (0: off) (default ${D.maxWarm})`, number)
    .option('--warm-memory-mb <n>', `memory the warm sandboxes may hold in all (default ${D.warmMemoryBytes / MB})`, number)
    .option('--warm-ttl <s>', `a warm sandbox no Reset took within this is removed (default ${D.warmTtlS})`, number)
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://HOST:PORT/metrics (0: any free port)', number)
    .option('--metrics-host <host>', 'address of the metrics endpoint', '127.0.0.1')
    .option('--oci-runtime <name>', "OCI runtime for sandboxes, as registered with the engine (e.g. crun); default the engine's")
    .option('--docker-socket <path>', "the container engine's socket (default: DOCKER_HOST or /var/run/docker.sock)")
    .option(
      '--shutdown-grace <s>',
      `on SIGTERM: refuse new episodes, let running calls finish this long, then remove every container (default ${D.shutdownGraceS})`,
      number,
    )
    .option('--install-rerun <when>', "re-run the plan's install after the patch: when-needed (default), always (the harness's way), never")
    .option('--reward-rule <rule>', "the verdict the reward follows: swe-env (default, strict) or harness (the official harness's)")
    .option('--harness-generation <g>', 'the swebench grading the harness verdict reproduces: 5 (default) or 4.1')
    .option('--grading-network <mode>', GRADING_NETWORK_HELP)
    .option(
      '--no-grading-exec-channel',
      "run every grading step as an engine exec (slower); by default the steps before the change's code runs go through one process in the grading container",
    )
    .option('--image-template <t>', 'image name per task, e.g. sweb.eval.x86_64.{id_lower}:latest')
    .option('--auth-token-file <file>', 'every call must carry this bearer token (or set SWE_ENV_AUTH_TOKEN); required beyond loopback')
    .option('--tls-cert <file>', 'TLS server certificate (PEM); required beyond loopback')
    .option('--tls-key <file>', 'TLS server key (PEM)')
    .option('--tls-client-ca <file>', 'mutual TLS: clients must present a certificate signed by this CA')
    .option('--log-level <level>', 'pino log level', 'info');
  addCacheOptions(addPullOptions(serve)).action(async (o: Record<string, unknown>) => {
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
      trajectoryMaxEpisodeBytes:
        o['trajectoryMaxEpisodeMb'] === undefined ? undefined : Math.round((o['trajectoryMaxEpisodeMb'] as number) * 1024 ** 2),
      installRerun: o['installRerun'] as InstallRerun | undefined,
      rewardRule: o['rewardRule'] as RewardRule | undefined,
      harnessGeneration: o['harnessGeneration'] as HarnessGeneration | undefined,
      gradingNetwork: o['gradingNetwork'] as GradingNetwork | undefined,
      gradingExecChannel: o['gradingExecChannel'] as boolean,
      logLevel: o['logLevel'] as string,
      images: imageSupplyInput(o),
      limits: {
        memoryBytes: o['memoryMb'] === undefined ? undefined : (o['memoryMb'] as number) * 1024 * 1024,
        nanoCpus: o['cpus'] === undefined ? undefined : Math.round((o['cpus'] as number) * 1e9),
        pidsLimit: o['pids'] as number | undefined,
        diskBytes: o['diskMb'] === undefined ? undefined : (o['diskMb'] as number) * 1024 * 1024,
        io: ioLimits(o),
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
    process.stdout.write(
      `swe-env listening on ${server.address} with ${server.tasks.size} tasks${server.metricsPort === undefined ? '' : `; metrics on ${config.metricsHost}:${server.metricsPort}/metrics`}\n`,
    );
    const stop = (): void => {
      server.shutdown().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** The --io-* options as the sandboxes' I/O limits; a rate without its device (or the reverse) is refused. */
export function ioLimits(o: Record<string, unknown>): SandboxIoLimits | undefined {
  const rate = (key: string, scale: number): number => (o[key] === undefined ? 0 : Math.round((o[key] as number) * scale));
  const io = {
    readBps: rate('ioReadMbps', 1024 * 1024),
    writeBps: rate('ioWriteMbps', 1024 * 1024),
    readIops: rate('ioReadIops', 1),
    writeIops: rate('ioWriteIops', 1),
  };
  const device = o['ioDevice'] as string | undefined;
  const anyRate = ['ioReadMbps', 'ioWriteMbps', 'ioReadIops', 'ioWriteIops'].some((key) => o[key] !== undefined);
  if (device === undefined && !anyRate) return undefined;
  if (device === undefined)
    throw new InvalidArgumentError(
      '--io-read-mbps, --io-write-mbps and the --io-*-iops limits need --io-device: the block device they hold',
    );
  if (!anyRate)
    throw new InvalidArgumentError('--io-device needs a limit: --io-read-mbps, --io-write-mbps, --io-read-iops or --io-write-iops');
  return { device, ...io };
}
