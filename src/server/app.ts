import * as grpc from '@grpc/grpc-js';
import { mkdir } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { FailedPreconditionError, InvalidArgumentError } from '../common/errors.js';
import { createLogger, type Logger } from '../common/logger.js';
import { Semaphore } from '../common/semaphore.js';
import { Grader } from '../reward/grader.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { loadTaskFiles } from '../tasks/loader.js';
import type { Task } from '../tasks/task.js';
import { TaskStore } from '../tasks/task-store.js';
import { bearerTokenInterceptor, readToken, serverCredentials } from './auth.js';
import type { ImageSupplyConfig, ServerConfig } from './config.js';
import { ImageMetrics } from '../metrics/image-metrics.js';
import type { ImageSupplyOptions } from '../sandbox/images/image-supply.js';
import { parseMirrorRule } from '../sandbox/images/image-reference.js';
import { RegistryCredentials } from '../sandbox/images/registry-credentials.js';
import { EpisodeRegistry } from './episode-registry.js';
import { EpisodeJournal } from './persistence/episode-journal.js';
import { recoverEpisodes } from './persistence/recovery.js';
import { TrajectoryRecorder } from '../trajectories/trajectory-recorder.js';
import { lockServerId, lockStateDir } from './server-lock.js';
import { loadProto } from '../common/proto.js';
import { serveMetrics } from '../metrics/metrics-http.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import { ServerInfoSource } from './server-info.js';
import { SweEnvService } from './service.js';

/** The server id's state directory: locked to this process, with its episode journal. */
async function openState(
  stateDir: string,
  serverId: string,
  logger: Logger,
): Promise<{ journal: EpisodeJournal; unlock: () => Promise<void> }> {
  const serverDir = join(stateDir, serverId);
  await mkdir(serverDir, { recursive: true, mode: 0o700 });
  const unlock = await lockStateDir(serverDir, serverId);
  try {
    return { journal: await EpisodeJournal.open(serverDir, logger), unlock };
  } catch (error) {
    await unlock();
    throw error;
  }
}

export const SERVICE_NAME = 'swe_env.v1.SweEnv';

/** How often the task-image budget is checked besides after each pull (images pulled by hand). */
const IMAGE_SWEEP_MS = 30_000;

/** The pull manager's and cache's options from the server's: credentials read once, here. */
async function imageSupplyOptions(c: Readonly<ImageSupplyConfig>, taskImages: () => Iterable<string>): Promise<ImageSupplyOptions> {
  return {
    maxPulls: c.maxPulls,
    pullRetries: c.pullRetries,
    pullBackoffBaseMs: c.pullBackoffS * 1000,
    pullBackoffMaxMs: Math.max(c.pullBackoffS * 1000, 60_000),
    credentials: await RegistryCredentials.load(c.registryConfig).catch((error: unknown) => {
      throw new InvalidArgumentError(`${(error as Error).message} (--registry-config)`);
    }),
    mirrors: c.registryMirrors.map(parseMirrorRule),
    cache: c.cacheHighBytes > 0 ? { highBytes: c.cacheHighBytes, lowBytes: c.cacheLowBytes } : undefined,
    prefetchPinS: c.prefetchPinS,
    taskImages,
  };
}

export interface RunningServer {
  readonly port: number;
  readonly address: string;
  readonly config: Readonly<ServerConfig>;
  readonly tasks: TaskStore;
  readonly registry: EpisodeRegistry;
  readonly provider: DockerSandboxProvider;
  readonly logger: Logger;
  /** The Prometheus endpoint's port, when metrics are served. */
  readonly metricsPort: number | undefined;
  /** Stops accepting calls, cancels what is still running after the grace period, removes every container. */
  shutdown(): Promise<void>;
}

/** Options a trainer-facing server needs so clients' keepalive pings are not refused. */
const CHANNEL_OPTIONS: grpc.ServerOptions = {
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 5_000,
  'grpc.http2.max_ping_strikes': 0,
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
};

export async function loadTasks(config: Readonly<ServerConfig>, logger: Logger): Promise<Task[]> {
  const tasks = await loadTaskFiles(config.taskFiles, { imageTemplate: config.imageTemplate }, (p) =>
    logger.warn({ file: p.file, where: p.where, field: p.field }, `skipped task record: ${p.message}`),
  );
  logger.info({ files: config.taskFiles, tasks: tasks.length }, 'tasks loaded');
  return tasks;
}

export async function startServer(
  config: Readonly<ServerConfig>,
  options: { logger?: Logger; tasks?: readonly Task[] } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const tasks = new TaskStore(options.tasks ?? (await loadTasks(config, logger)));
  const imageMetrics: { current?: ImageMetrics } = {};
  const provider = new DockerSandboxProvider(config.serverId, {
    ...(config.dockerSocket ? { socketPath: config.dockerSocket } : {}),
    ...(config.ociRuntime ? { ociRuntime: config.ociRuntime } : {}),
    images: await imageSupplyOptions(config.images, () => tasks.list().map((t) => t.image)),
    imageHooks: {
      onPulled: (_image, outcome, _attempts, seconds) => imageMetrics.current?.pulled(outcome, seconds),
      onRetry: (_image, kind) => imageMetrics.current?.retried(kind),
      onEvicted: (report) => imageMetrics.current?.evicted(report),
      log: (level, message, fields) => logger[level](fields, message),
    },
  });
  await provider.ping();
  // Before anything touches the engine's containers of this id: they may be a live server's.
  const unlockId = await lockServerId(config.serverId);
  let state: Awaited<ReturnType<typeof openState>> | undefined;
  try {
    state = config.stateDir ? await openState(config.stateDir, config.serverId, logger) : undefined;
  } catch (error) {
    await unlockId();
    throw error;
  }
  await provider.watchEvents();
  provider.watchDisk(config.diskCheckIntervalS * 1000);

  const starts = new Semaphore(config.maxConcurrentStarts);
  // The gauges read the registry and grader made below; they are read only at scrape time.
  const metrics = new ServerMetrics({
    liveEpisodes: () => registry.liveCount,
    warmSandboxes: () => registry.warm.warmCount,
    gradingsRunning: () => grader.gradingsRunning,
    startsInFlight: () => starts.inUse,
    hostFreeBytes: () => provider.hostFreeBytes(),
    maxEpisodes: config.maxEpisodes,
    minFreeBytes: config.minHostFreeBytes,
  });
  provider.onContainerStart = (role, seconds, ok) => metrics.containerStart(role, seconds, ok);
  imageMetrics.current = new ImageMetrics(metrics.registry, () => provider.images.snapshot());
  provider.images.startSweeps(IMAGE_SWEEP_MS);
  void provider.images.enforce();
  const grader = new Grader(
    provider,
    starts,
    {
      limits: config.limits,
      testTimeoutS: config.testTimeoutS,
      logLimitBytes: config.logLimitBytes,
      maxGradings: config.maxGradings,
      installRerun: config.installRerun,
      rewardRule: config.rewardRule,
      harnessGeneration: config.harnessGeneration,
      gradingNetwork: config.gradingNetwork,
      execChannel: config.gradingExecChannel,
      onGraded: (report) => metrics.graded(report),
    },
    logger,
  );
  const trajectories = config.trajectoryDir
    ? await TrajectoryRecorder.start(
        {
          dir: config.trajectoryDir,
          serverId: config.serverId,
          maxTotalBytes: config.trajectoryMaxBytes,
          maxEpisodeBytes: config.trajectoryMaxEpisodeBytes,
        },
        logger,
      )
    : undefined;
  metrics.trajectories = trajectories;
  const registry = new EpisodeRegistry(config, provider, starts, grader, logger, state?.journal, trajectories);
  try {
    // An earlier run's episodes go on (with records) or its containers are removed (without).
    if (state) {
      // Listens before the adoptions are done: each goes on in the background (see recoverEpisodes).
      const recovery = await recoverEpisodes({ config, journal: state.journal, provider, tasks, registry, logger });
      void recovery.settled.then(
        (report) => metrics.recovered(report),
        (error: unknown) => logger.error({ err: error }, 'taking over the episodes of an earlier run failed'),
      );
    } else {
      const leftovers = await provider.removeServerContainers();
      if (leftovers > 0) logger.warn({ removed: leftovers, serverId: config.serverId }, 'removed containers left by an earlier run');
      metrics.leftoversRemoved.inc(leftovers);
    }
  } catch (error) {
    await state?.unlock();
    await unlockId();
    throw error;
  }
  metrics.journalDropped = () => state?.journal.dropped ?? 0;
  const shutdownController = new AbortController();
  const info = new ServerInfoSource({ config, tasks, registry, grader, starts, provider });
  const service = new SweEnvService({
    tasks,
    registry,
    grader,
    logger,
    shutdown: shutdownController.signal,
    info,
    metrics,
    images: provider.images,
  });

  const { definition, proto } = loadProto();
  const token = readToken(config.security);
  const credentials = serverCredentials(config.security);
  const server = new grpc.Server({ ...CHANNEL_OPTIONS, ...(token ? { interceptors: [bearerTokenInterceptor(token)] } : {}) });
  server.addService(proto.swe_env.v1.SweEnv.service, service.handlers());
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  new ReflectionService(definition).addToServer(server);

  const port = await bindPort(server, config.host, config.port, credentials).catch(async (error: unknown) => {
    await state?.journal.close();
    await state?.unlock();
    await unlockId();
    provider.events.stop();
    await provider.disk.stop();
    throw error;
  });
  const metricsEndpoint =
    config.metricsPort === undefined
      ? undefined
      : await serveMetrics(metrics.registry, config.metricsHost, config.metricsPort, { token, security: config.security });
  registry.startSweeper();
  logger.info(
    {
      host: config.host,
      port,
      tasks: tasks.size,
      serverId: config.serverId,
      tls: Boolean(config.security.tlsCertFile),
      token: Boolean(token),
    },
    'swe-env serving',
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      logger.info('shutting down');
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(SERVICE_NAME, 'NOT_SERVING');
      const drained = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      const grace = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), config.shutdownGraceS * 1000).unref());
      if ((await Promise.race([drained, grace])) === 'timeout') {
        shutdownController.abort(new Error('the server is shutting down'));
        server.forceShutdown();
      }
      await metricsEndpoint?.close();
      const left = await registry.shutdown(config.onShutdown, config.shutdownGraceS * 1000);
      await provider.removeServerContainers(left).catch((error: unknown) => logger.error({ err: error }, 'final cleanup failed'));
      await state?.journal.close();
      await trajectories?.close();
      await state?.unlock();
      await unlockId();
      provider.events.stop();
      provider.images.stop();
      await provider.disk.stop();
      logger.info('stopped');
    })();
    return stopping;
  };

  return {
    port,
    address: `${config.host}:${port}`,
    config,
    tasks,
    registry,
    provider,
    logger,
    shutdown,
    metricsPort: metricsEndpoint?.port,
  };
}

/** Binds the gRPC port; a port in use says which flag picks another. */
async function bindPort(server: grpc.Server, host: string, port: number, credentials: grpc.ServerCredentials): Promise<number> {
  // grpc-js logs its own "No address added" line on a busy port before its error: look first.
  if (port !== 0) await probePort(host, port);
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, credentials, (error, bound) => {
      if (!error) resolve(bound);
      else if (/EADDRINUSE/.test(error.message))
        reject(
          new FailedPreconditionError(
            `${host}:${port} is in use (another swe-env server?): choose another port with --port, or --port 0 for any free one`,
          ),
        );
      else if (/EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(error.message))
        reject(new InvalidArgumentError(`cannot listen on ${host}:${port}: no such local address (--host)`));
      else reject(error);
    });
  });
}

function probePort(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE'
        ? reject(
            new FailedPreconditionError(
              `${host}:${port} is in use (another swe-env server?): choose another port with --port, or --port 0 for any free one`,
            ),
          )
        : resolve(),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
