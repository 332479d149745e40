/**
 * The sandbox contract. Everything above src/sandbox talks to containers through these interfaces;
 * only the code in src/sandbox (docker-sandbox.ts and the files it is split into) knows about Docker.
 */
import type { Duplex } from 'node:stream';

/** One process of a sandbox as the engine's `top` lists it. */
export interface TopProcess {
  readonly pid: number;
  readonly ppid: number;
  /** The first letter of ps's STAT: R running, S or D sleeping (D: in the kernel, uninterruptible), Z ended, T stopped. */
  readonly state: string;
  /** Whether SIGKILL is pending for it (the kernel's pending set); undefined where the engine does not say. */
  readonly killPending?: boolean;
  readonly command: string;
  readonly init: boolean;
}

export interface SandboxLimits {
  readonly memoryBytes: number;
  readonly nanoCpus: number;
  readonly pidsLimit: number;
  /** Writable-layer quota (0: none): the driver's size option where it has one, a watchdog otherwise. */
  readonly diskBytes: number;
  /** Disk bandwidth per sandbox on the engine's storage device; none by default. */
  readonly io?: SandboxIoLimits;
}

/**
 * A sandbox's reads and writes on one block device of the engine's host, in bytes and operations
 * per second (0: no limit of that kind). Direct I/O and reads are held to it on cgroup v1 and v2;
 * buffered writes only on v2 (v1 charges their flush to the kernel).
 */
export interface SandboxIoLimits {
  /** The device node the engine's storage lies on, as a path on the engine's host (`/dev/vda`). */
  readonly device: string;
  readonly readBps: number;
  readonly writeBps: number;
  readonly readIops: number;
  readonly writeIops: number;
}

export interface SandboxSpec {
  readonly image: string;
  readonly workdir: string;
  /** The container's PID 1 exits by itself after this long, so nothing outlives a dead server. */
  readonly maxLifetimeS: number;
  /**
   * 'build' containers (committed into task images) carry no management labels: a commit keeps a
   * container's labels, and an image labelled as managed would have every container anyone starts
   * from it reaped by any swe-env server. Their keeper's own timer and AutoRemove still end them.
   */
  readonly role: 'episode' | 'grader' | 'build';
  readonly episodeId: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  /**
   * 'host' only for an image build that was asked to download (a base variant's apt packages,
   * `images build --network-install`); every other container has no network. 'offline' (graders):
   * no network either, but a default route into loopback, where packets die, so a connect to any
   * address waits out its timeout as on a host whose packets are lost (see offline-network/).
   */
  readonly network?: 'none' | 'host' | 'offline';
  /**
   * 'offline' only: create returns as soon as the container runs, its route still being set by its
   * helper; networkReady() says when it is set. The caller must await networkReady() before anything
   * runs in the container that it does not own or that needs the network (the grader: before any
   * code of the change runs). Without it, create returns once the route is set.
   */
  readonly routeInBackground?: boolean;
}

/** What an 'offline' sandbox's route came to: set (by which program), or not (why: the sandbox has loopback only). */
export interface OfflineRoute {
  readonly applied: boolean;
  readonly via?: 'ip' | 'python';
  readonly why?: string;
}

export interface ExecOptions {
  readonly workdir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly stdin?: Buffer | string;
  /** Kill the exec (the whole container for graders) after this long. */
  readonly timeoutMs?: number;
  /** Cap on the merged output kept; the rest is counted and left out. */
  readonly outputLimitBytes?: number;
  readonly signal?: AbortSignal;
  /** Keep stderr apart (in `stderr`) instead of merging it into `output`. */
  readonly separateStderr?: boolean;
}

export interface ExecResult {
  readonly exitCode: number;
  /** stdout and stderr merged in arrival order (stdout alone with separateStderr), capped, raw bytes. */
  readonly output: Buffer;
  /** stderr, capped to 64 KiB, when separateStderr was asked for; otherwise empty. */
  readonly stderr: string;
  readonly outputBytes: number;
  readonly omittedBytes: number;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

export interface BesideOptions {
  readonly timeoutMs: number;
  /** Told each line the helper prints; a string returned is written to its stdin as a line. */
  readonly answer?: (line: string) => string | undefined;
}

export interface BesideResult {
  /** -1 when it timed out. */
  readonly exitCode: number;
  readonly timedOut: boolean;
}

/** How a sandbox ended, as far as the engine and this server know. */
export interface SandboxFate {
  readonly ownOutOfMemory: boolean;
  readonly exitCode: number | undefined;
  readonly diskOverrun?: { readonly usedBytes: number; readonly limitBytes: number };
  /** Set when this server killed it through the engine (terminate): why. */
  readonly terminated?: string;
}

export interface AttachedProcess {
  /** Writable end is the process's stdin; readable end yields its demultiplexed stdout+stderr. */
  readonly stream: Duplex;
  readonly output: NodeJS.ReadableStream;
  /** Exit code once the process has ended (null while it runs). */
  exitCode(): Promise<number | null>;
}

export interface Sandbox {
  readonly id: string;
  readonly spec: SandboxSpec;
  /** Set for a sandbox created with network 'offline' (once networkReady() resolved). */
  readonly offlineRoute?: OfflineRoute;
  /** The engine's id of the image the container runs (by content), undefined when the engine does not say. */
  imageId(): Promise<string | undefined>;
  /** Resolves once the network is as its spec asks (at once but for routeInBackground); rejects when it cannot be. */
  networkReady(): Promise<void>;
  /** Runs a command to completion and collects its output. */
  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** Starts a long-lived process with stdin attached (the agent's shell). */
  attach(argv: readonly string[], options?: { workdir?: string; env?: Readonly<Record<string, string>> }): Promise<AttachedProcess>;
  /** Writes files into the container (paths absolute). */
  putFiles(files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>): Promise<void>;
  /** Extracts a tar archive into the container at `path`. */
  putArchive(archive: Buffer | NodeJS.ReadableStream, path: string): Promise<void>;
  /**
   * Runs a program in a helper beside the sandbox: from the sandbox's pristine image (nothing the
   * agent wrote is used), seeing and able to signal the sandbox's processes, outside its pid limit.
   * Lines it prints go to `answer`, whose reply goes to its stdin. Throws when the engine cannot run it.
   */
  runBeside(argv: readonly string[], options: BesideOptions): Promise<BesideResult>;
  /** Kills the whole container through the engine (nothing inside can refuse); `reason` is its fate from then on. */
  terminate(reason: string): Promise<void>;
  isRunning(): Promise<boolean>;
  /** Whether the container's processes are frozen (`docker pause`): running, but nothing moves. */
  isPaused(): Promise<boolean>;
  /**
   * Freezes every process of the container (the engine's pause: a cgroup freeze nothing inside can
   * undo). Already paused: no error. A container that is gone or stopped throws.
   */
  pause(): Promise<void>;
  /** Thaws a paused container; not paused, or gone: no error. */
  unpause(): Promise<void>;
  /** The container's processes as the engine lists them from the host (nothing runs inside). */
  processes(): Promise<TopProcess[]>;
  /**
   * Ends every process of the container but its PID 1, through PID 1's own signal handler (no file
   * of the container runs). Check with processes(): a process racing the kill may survive it.
   */
  killAllButInit(): Promise<void>;
  /** What the container's writable layer changed against its image (the engine's diff; nothing runs inside). */
  changes(): Promise<Array<{ readonly path: string; readonly kind: 'modified' | 'added' | 'deleted' }>>;
  /** A path's type and size as the engine stats it (nothing runs inside); undefined when absent. */
  statPath(path: string): Promise<{ readonly size: number; readonly isFile: boolean; readonly isSymlink: boolean } | undefined>;
  /** A tar of one path, read by the engine (nothing runs inside); at most maxBytes or it throws. */
  readArchive(path: string, maxBytes: number): Promise<Buffer>;
  /**
   * The same tar as it comes, for reads that keep a little of a large tree; past maxBytes the
   * iteration throws. Stopping the iteration early ends the engine's read.
   */
  streamArchive(path: string, maxBytes: number): AsyncIterable<Buffer>;
  /**
   * How the container ended, as the engine reported it (waits a moment for the report); undefined
   * while it runs or when nothing was reported.
   */
  fate(waitMs?: number): Promise<SandboxFate | undefined>;
  /** Idempotent: force-removes the container. */
  remove(): Promise<void>;
}

export interface ServerContainer {
  readonly id: string;
  readonly episodeId: string;
  readonly role: string;
  readonly running: boolean;
}

export interface SandboxProvider {
  readonly serverId: string;
  create(spec: SandboxSpec, signal?: AbortSignal): Promise<Sandbox>;
  imageExists(image: string): Promise<boolean>;
  /**
   * The image on the engine: pulled when missing, one pull however many callers want it. The
   * signal ends the wait, not the pull: a retry joins it.
   */
  ensureImage(image: string, signal?: AbortSignal): Promise<void>;
  /** Keeps a task image from eviction (the image cache) until the returned function is called. */
  pinImage(image: string): () => void;
  /** Removes every container this server id left behind (a crashed predecessor's), but those in `keep`. */
  removeServerContainers(keep?: ReadonlySet<string>): Promise<number>;
  /** This server id's containers, running or not (a restart deciding what to re-adopt). */
  serverContainers(): Promise<ServerContainer[]>;
  /** A sandbox for an existing container of this server id (a restart re-adopting it). */
  adopt(containerId: string, spec: SandboxSpec): Sandbox;
  /** Removes managed containers past their expiry label, whichever server made them. */
  removeExpired(now?: Date): Promise<number>;
  /** Containers of this server, for tests and shutdown. */
  listContainers(filter?: { episodeId?: string }): Promise<string[]>;
  ping(): Promise<void>;
  /** Free bytes where the engine keeps container layers; undefined when that is not on this machine. */
  hostFreeBytes(): Promise<number | undefined>;
}
