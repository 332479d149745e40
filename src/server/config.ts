import { InvalidArgumentError } from '../common/errors.js';
import { GRADING_NETWORKS, type GradingNetwork } from '../reward/grading/grader-options.js';
import type { SandboxIoLimits, SandboxLimits } from '../sandbox/sandbox.js';
import { INSTALL_RERUNS, type InstallRerun } from '../reward/eval-plan/install-policy.js';
import type { HarnessGeneration } from '../languages/index.js';
import { REWARD_RULES, type RewardRule } from '../reward/report.js';
import { DEFAULT_IMAGE_TEMPLATE } from '../tasks/image-name.js';
import { checkExposure, type ServerSecurity } from './auth.js';
import { parseMirrorRule } from '../sandbox/images/image-reference.js';

export type TruncationPolicy = 'grade' | 'zero';

export interface EpisodeDefaults {
  readonly maxSteps: number;
  readonly commandTimeoutS: number;
  readonly episodeTimeoutS: number;
  readonly outputLimitBytes: number;
  readonly truncation: TruncationPolicy;
  readonly idleTimeoutS: number;
}

/** Where task images come from and how much disk they may hold (see src/sandbox/images/). */
export interface ImageSupplyConfig {
  /** Pulls at once at most. */
  readonly maxPulls: number;
  /** Tries after the first for a rate limit (429), a 5xx or a network error. */
  readonly pullRetries: number;
  /** The first backoff; it doubles per try up to a minute, with jitter. */
  readonly pullBackoffS: number;
  /** Docker's config.json with per-registry credentials; undefined: DOCKER_CONFIG or ~/.docker. */
  readonly registryConfig: string | undefined;
  /** `FROM=TO` rules: images named for FROM are pulled from TO (then FROM itself). */
  readonly registryMirrors: readonly string[];
  /** Over this many bytes of task images the least recently used unpinned ones go; 0: no budget. */
  readonly cacheHighBytes: number;
  /** Eviction stops here; 0 with a high mark: 80% of it. */
  readonly cacheLowBytes: number;
  /** A prefetched image is kept from eviction this long. */
  readonly prefetchPinS: number;
}

export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  /** Labels this server's containers; a restarted server with the same id removes its leftovers. */
  readonly serverId: string;
  readonly taskFiles: readonly string[];
  readonly imageTemplate: string;
  readonly maxEpisodes: number;
  readonly maxConcurrentStarts: number;
  /** Gradings (submit, truncation with GRADE, Evaluate) at once at most, each in its own container. */
  readonly maxGradings: number;
  readonly limits: SandboxLimits;
  /** How often every sandbox's writable layer is measured against limits.diskBytes. */
  readonly diskCheckIntervalS: number;
  /** Reset answers RESOURCE_EXHAUSTED while the engine's disk has less free space than this. */
  readonly minHostFreeBytes: number;
  readonly defaults: EpisodeDefaults;
  /** Upper bounds on what a client may ask for in EpisodeOptions. */
  readonly bounds: EpisodeDefaults;
  readonly testTimeoutS: number;
  readonly logLimitBytes: number;
  readonly maxPatchBytes: number;
  /** When grading re-runs the plan's install after the patch (see install-policy.ts). */
  readonly installRerun: InstallRerun;
  /** Which verdict the reward follows (Evaluate may ask for the other). */
  readonly rewardRule: RewardRule;
  /** Which swebench grading the harness verdict in each report reproduces. */
  readonly harnessGeneration: HarnessGeneration;
  /** The network of containers that run tests: 'offline' (every address routed into loopback) or 'none'. */
  readonly gradingNetwork: GradingNetwork;
  /** Grading steps before the change's code runs go through one process in the container (false: an engine exec each). */
  readonly gradingExecChannel: boolean;
  readonly sweepIntervalS: number;
  /** How long a closed or expired episode is remembered (Close stays idempotent, NOT_FOUND says why). */
  readonly tombstoneTtlS: number;
  readonly shutdownGraceS: number;
  readonly dockerSocket: string | undefined;
  /** The engine's OCI runtime for sandboxes (e.g. crun, registered with dockerd --add-runtime); default the engine's. */
  readonly ociRuntime: string | undefined;
  readonly logLevel: string;
  /** Token and TLS; required when host is not loopback (see auth.ts). */
  readonly security: ServerSecurity;
  /** Warm sandboxes (Prewarm) over all tasks at most; 0 turns prewarming off. */
  readonly maxWarm: number;
  /** Memory the warm sandboxes may hold in all (each counts limits.memoryBytes). */
  readonly warmMemoryBytes: number;
  /** A warm sandbox no Reset took within this is removed. */
  readonly warmTtlS: number;
  /** Prometheus metrics on this port (0: any free one); undefined: not served. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /**
   * Where episode records are kept so a restart with the same server id re-adopts its episodes
   * (records under `<stateDir>/<serverId>/`); undefined: no records, a restart removes leftovers.
   */
  readonly stateDir: string | undefined;
  /** Where episode trajectories are recorded (under `<dir>/<serverId>/`); undefined: not recorded. */
  readonly trajectoryDir: string | undefined;
  /** Past this many bytes in the trajectory directory, new records are dropped (and counted). */
  readonly trajectoryMaxBytes: number;
  /** Past this many bytes in one episode's trajectory, its further steps are dropped. */
  readonly trajectoryMaxEpisodeBytes: number;
  /** On shutdown: 'drain' removes every episode; 'leave' keeps live ones for the next start (needs stateDir). */
  readonly onShutdown: ShutdownMode;
  /**
   * After a restart, an episode taken over from the last run that no client calls within this many
   * seconds is ended (as the environment's failure) and its container removed: its client gave up.
   */
  readonly adoptionGraceS: number;
  readonly images: ImageSupplyConfig;
}

export const SHUTDOWN_MODES = ['drain', 'leave'] as const;
export type ShutdownMode = (typeof SHUTDOWN_MODES)[number];

export type ServerConfigInput = Partial<Omit<ServerConfig, 'limits' | 'defaults' | 'bounds' | 'security' | 'images'>> & {
  images?: Partial<ImageSupplyConfig>;
  security?: ServerSecurity;
  limits?: Partial<SandboxLimits>;
  defaults?: Partial<EpisodeDefaults>;
  bounds?: Partial<EpisodeDefaults>;
};

export const DEFAULTS: Omit<
  ServerConfig,
  'taskFiles' | 'dockerSocket' | 'security' | 'metricsPort' | 'ociRuntime' | 'stateDir' | 'trajectoryDir'
> = {
  images: {
    maxPulls: 4,
    pullRetries: 5,
    pullBackoffS: 2,
    registryConfig: undefined,
    registryMirrors: [],
    cacheHighBytes: 0,
    cacheLowBytes: 0,
    prefetchPinS: 900,
  },
  onShutdown: 'drain',
  adoptionGraceS: 300,
  trajectoryMaxBytes: 10 * 1024 ** 3,
  trajectoryMaxEpisodeBytes: 64 * 1024 ** 2,
  metricsHost: '127.0.0.1',
  maxWarm: 16,
  warmMemoryBytes: 16 * 1024 ** 3,
  warmTtlS: 600,
  host: '127.0.0.1',
  port: 50051,
  serverId: 'default',
  imageTemplate: DEFAULT_IMAGE_TEMPLATE,
  maxEpisodes: 256,
  maxConcurrentStarts: 8,
  maxGradings: 4,
  limits: { memoryBytes: 4 * 1024 ** 3, nanoCpus: 1e9, pidsLimit: 1024, diskBytes: 10 * 1024 ** 3 },
  diskCheckIntervalS: 5,
  minHostFreeBytes: 4 * 1024 ** 3,
  defaults: {
    maxSteps: 100,
    commandTimeoutS: 120,
    episodeTimeoutS: 3600,
    outputLimitBytes: 32 * 1024,
    truncation: 'grade',
    idleTimeoutS: 1800,
  },
  bounds: {
    maxSteps: 10_000,
    commandTimeoutS: 3600,
    episodeTimeoutS: 24 * 3600,
    outputLimitBytes: 4 * 1024 * 1024,
    truncation: 'grade',
    idleTimeoutS: 24 * 3600,
  },
  testTimeoutS: 1800,
  logLimitBytes: 8 * 1024 * 1024,
  maxPatchBytes: 32 * 1024 * 1024,
  installRerun: 'when-needed',
  rewardRule: 'swe-env',
  harnessGeneration: '5',
  gradingNetwork: 'offline',
  gradingExecChannel: true,
  sweepIntervalS: 10,
  tombstoneTtlS: 3600,
  shutdownGraceS: 10,
  logLevel: 'info',
};

function positive(name: string, value: number, integer = false): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new InvalidArgumentError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`${name} must be a whole number >= 0 (0: none), got ${value}`);
  return value;
}

/** The I/O throttle of every sandbox: a device path and at least one rate. */
function checkIoLimits(io: SandboxIoLimits): SandboxIoLimits {
  if (typeof io.device !== 'string' || !io.device.startsWith('/')) {
    throw new InvalidArgumentError(
      `limits.io.device must be the path of a block device on the engine's host (e.g. /dev/vda), got ${String(io.device)}`,
    );
  }
  for (const kind of ['readBps', 'writeBps', 'readIops', 'writeIops'] as const) nonNegative(`limits.io.${kind}`, io[kind]);
  if (io.readBps + io.writeBps + io.readIops + io.writeIops === 0) {
    throw new InvalidArgumentError(`limits.io for ${io.device} sets no rate: give a read or write limit in bytes or operations per second`);
  }
  return Object.freeze({ ...io });
}

function checkEpisodeDefaults(prefix: string, d: EpisodeDefaults): EpisodeDefaults {
  positive(`${prefix}.maxSteps`, d.maxSteps, true);
  positive(`${prefix}.commandTimeoutS`, d.commandTimeoutS);
  positive(`${prefix}.episodeTimeoutS`, d.episodeTimeoutS);
  positive(`${prefix}.outputLimitBytes`, d.outputLimitBytes, true);
  positive(`${prefix}.idleTimeoutS`, d.idleTimeoutS);
  if (d.truncation !== 'grade' && d.truncation !== 'zero') {
    throw new InvalidArgumentError(`${prefix}.truncation must be 'grade' or 'zero'`);
  }
  return Object.freeze({ ...d });
}

/** Options in, fully defaulted and frozen options out: parsed once, at start. */
export function compileConfig(input: ServerConfigInput = {}): Readonly<ServerConfig> {
  const config: ServerConfig = {
    ...DEFAULTS,
    ...stripUndefined(input),
    taskFiles: Object.freeze([...(input.taskFiles ?? [])]),
    dockerSocket: input.dockerSocket,
    security: Object.freeze({ ...stripUndefined(input.security ?? {}) }),
    metricsPort: input.metricsPort,
    ociRuntime: input.ociRuntime,
    stateDir: input.stateDir || undefined,
    trajectoryDir: input.trajectoryDir || undefined,
    limits: Object.freeze({
      ...DEFAULTS.limits,
      ...stripUndefined(input.limits ?? {}),
      ...(input.limits?.io ? { io: checkIoLimits(input.limits.io) } : {}),
    }),
    defaults: checkEpisodeDefaults('defaults', { ...DEFAULTS.defaults, ...stripUndefined(input.defaults ?? {}) }),
    bounds: checkEpisodeDefaults('bounds', { ...DEFAULTS.bounds, ...stripUndefined(input.bounds ?? {}) }),
    images: checkImageSupply({ ...DEFAULTS.images, ...stripUndefined(input.images ?? {}) }),
  };
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new InvalidArgumentError(`port must be 0..65535, got ${config.port}`);
  }
  positive('maxEpisodes', config.maxEpisodes, true);
  positive('maxConcurrentStarts', config.maxConcurrentStarts, true);
  positive('maxGradings', config.maxGradings, true);
  positive('limits.memoryBytes', config.limits.memoryBytes, true);
  positive('limits.nanoCpus', config.limits.nanoCpus, true);
  positive('limits.pidsLimit', config.limits.pidsLimit, true);
  nonNegative('limits.diskBytes', config.limits.diskBytes);
  positive('diskCheckIntervalS', config.diskCheckIntervalS);
  nonNegative('minHostFreeBytes', config.minHostFreeBytes);
  positive('testTimeoutS', config.testTimeoutS);
  positive('sweepIntervalS', config.sweepIntervalS);
  checkExposure(config.host, config.security);
  // The metrics endpoint follows the gRPC port's rules: off loopback, only with a token and TLS.
  if (config.metricsPort !== undefined) checkExposure(config.metricsHost, config.security, 'serve metrics');
  nonNegative('maxWarm', config.maxWarm);
  positive('warmTtlS', config.warmTtlS);
  positive('adoptionGraceS', config.adoptionGraceS);
  oneOf('installRerun', config.installRerun, INSTALL_RERUNS);
  oneOf('rewardRule', config.rewardRule, REWARD_RULES);
  oneOf('harnessGeneration', config.harnessGeneration, ['5', '4.1']);
  oneOf('gradingNetwork', config.gradingNetwork, GRADING_NETWORKS);
  oneOf('onShutdown', config.onShutdown, SHUTDOWN_MODES);
  positive('trajectoryMaxBytes', config.trajectoryMaxBytes);
  positive('trajectoryMaxEpisodeBytes', config.trajectoryMaxEpisodeBytes);
  if (config.onShutdown === 'leave' && !config.stateDir) {
    throw new InvalidArgumentError("onShutdown 'leave' keeps episodes for the next start, which needs a state directory to find them");
  }
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(config.serverId)) {
    throw new InvalidArgumentError(`serverId must be letters, digits, '_', '.', '-', got '${config.serverId}'`);
  }
  return Object.freeze(config);
}

function checkImageSupply(c: ImageSupplyConfig): ImageSupplyConfig {
  positive('images.maxPulls', c.maxPulls, true);
  nonNegative('images.pullRetries', c.pullRetries);
  positive('images.pullBackoffS', c.pullBackoffS);
  nonNegative('images.cacheHighBytes', c.cacheHighBytes);
  nonNegative('images.cacheLowBytes', c.cacheLowBytes);
  positive('images.prefetchPinS', c.prefetchPinS);
  for (const rule of c.registryMirrors) {
    try {
      parseMirrorRule(rule);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  }
  const low = c.cacheHighBytes > 0 && c.cacheLowBytes === 0 ? Math.floor(c.cacheHighBytes * 0.8) : c.cacheLowBytes;
  if (c.cacheHighBytes > 0 && low > c.cacheHighBytes)
    throw new InvalidArgumentError(
      `the image cache's low mark (${low} bytes) is above its high mark (${c.cacheHighBytes}): eviction would never stop`,
    );
  if (c.cacheHighBytes === 0 && c.cacheLowBytes > 0)
    throw new InvalidArgumentError('an image cache low mark needs a high mark (--image-cache-gb)');
  return Object.freeze({ ...c, cacheLowBytes: low, registryMirrors: Object.freeze([...c.registryMirrors]) });
}

function oneOf(name: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(', ')}, got '${value}'`);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
