import Docker from 'dockerode';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import { pack as tarPack } from 'tar-stream';
import { SANDBOX_SECCOMP_PROFILE } from './seccomp.js';
import { ContainerEvents, type ContainerFate } from './container-events.js';
import { DiskWatchdog } from './disk-watchdog.js';
import { InfraError, UnavailableError, messageOf } from '../common/errors.js';
import { abortReason } from '../common/abort.js';
import { CappedOutput } from './output-buffer.js';
import { KEEPER_SCRIPT } from './shell-scripts.js';
import { LABEL_EPISODE, LABEL_MANAGED, LABEL_ROLE, LABEL_SERVER, isExpired, sandboxLabels } from './labels.js';
import type {
  AttachedProcess,
  ExecOptions,
  ExecResult,
  Sandbox,
  SandboxProvider,
  SandboxSpec,
  ServerContainer,
} from './sandbox.js';

const DEFAULT_EXEC_OUTPUT_LIMIT = 16 * 1024 * 1024;

function envList(env: Readonly<Record<string, string>> | undefined): string[] | undefined {
  if (!env) return undefined;
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** A writable that feeds a CappedOutput (docker-modem demultiplexes into two of these). */
function capturingWritable(sink: CappedOutput): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sink.push(chunk);
      callback();
    },
  });
}

export class DockerSandboxProvider implements SandboxProvider {
  readonly docker: Docker;
  /** The engine's oom/die events for this server's containers (started by watchEvents). */
  readonly events: ContainerEvents;
  /** Keeps writable layers under limits.diskBytes (started by watchDisk). */
  readonly disk: DiskWatchdog;
  /** Whether the storage driver takes a per-container size (StorageOpt); learnt on first create. */
  private storageQuota: boolean | undefined;

  constructor(
    readonly serverId: string,
    options: { socketPath?: string; ociRuntime?: string } = {},
  ) {
    this.ociRuntime = options.ociRuntime;
    this.docker = new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
    this.events = new ContainerEvents(this.docker, `${LABEL_SERVER}=${serverId}`);
    this.disk = new DiskWatchdog(this.docker);
  }

  /** Checks every live sandbox's writable layer against its disk limit every interval. */
  watchDisk(intervalMs: number): void {
    this.disk.start(intervalMs);
  }

  hostFreeBytes(): Promise<number | undefined> {
    return this.disk.hostFreeBytes();
  }

  /**
   * Drivers with a per-container size option enforce the disk limit inside the container (a write
   * past it fails with ENOSPC); overlay2 only on xfs mounted with pquota, which create reports.
   */
  private async storageQuotaSupported(): Promise<boolean> {
    if (this.storageQuota === undefined) {
      const info = (await this.docker.info().catch(() => ({}))) as { Driver?: string; DriverStatus?: Array<[string, string]> };
      const backing = (info.DriverStatus ?? []).find(([key]) => key === 'Backing Filesystem')?.[1] ?? '';
      const driver = info.Driver ?? '';
      this.storageQuota = ['btrfs', 'zfs', 'devicemapper', 'windowsfilter'].includes(driver) || (driver === 'overlay2' && backing === 'xfs');
    }
    return this.storageQuota;
  }

  /** Every `repo:tag` the engine holds (one listing; nothing is pulled). */
  async imageTags(): Promise<Set<string>> {
    const images = await this.docker.listImages();
    return new Set(images.flatMap((image) => image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>'));
  }

  /** Follows the engine's container events, so a dead sandbox can say what killed it. */
  async watchEvents(): Promise<void> {
    await this.events.start();
  }

  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (error) {
      throw new InfraError(`the Docker engine does not answer: ${String(error)}`, { cause: error });
    }
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if (statusCodeOf(error) === 404) return false;
      throw new InfraError(`cannot inspect image ${image}: ${String(error)}`, { cause: error });
    }
  }

  /**
   * Pulls an image that is not present, when a registry answers. Without one (this project's usual
   * machine) the error names the image and how to build it.
   */
  async ensureImage(image: string): Promise<void> {
    if (await this.imageExists(image)) return;
    try {
      const stream = await this.docker.pull(image);
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
      });
    } catch (error) {
      throw new InfraError(
        `image ${image} is not on this Docker engine and could not be pulled (${messageOf(error).split('\n')[0]}); build it with \`swe-env images build\` or \`swe-env images build-demo\``,
        { cause: error },
      );
    }
  }

  /** The engine's OCI runtime for sandboxes (runc by default; crun where registered). */
  private readonly ociRuntime: string | undefined;

  /** Told of every container start: its role, how long it took, whether it started (metrics). */
  onContainerStart: ((role: string, seconds: number, ok: boolean) => void) | undefined;

  async create(spec: SandboxSpec, signal?: AbortSignal): Promise<Sandbox> {
    const started = Date.now();
    try {
      const sandbox = await this.createOnce(spec, signal);
      this.onContainerStart?.(spec.role, (Date.now() - started) / 1000, true);
      return sandbox;
    } catch (error) {
      this.onContainerStart?.(spec.role, (Date.now() - started) / 1000, false);
      throw error;
    }
  }

  private async createOnce(spec: SandboxSpec, signal?: AbortSignal): Promise<Sandbox> {
    if (signal?.aborted) throw abortReason(signal);
    const expiresAt = new Date(Date.now() + spec.maxLifetimeS * 1000);
    const options: Docker.ContainerCreateOptions = {
      Image: spec.image,
      // PID 1 is the keeper: it outlives anything a command can do inside, and ends the container
      // after its maximum life even if this server is killed; AutoRemove then deletes it. It runs as
      // the command with the image's entrypoint reset ([""] means none), so a build container
      // committed into an image leaves no entrypoint behind.
      Entrypoint: [''],
      Cmd: ['bash', '--noprofile', '--norc', '-c', KEEPER_SCRIPT, 'swe-env-keeper', String(Math.ceil(spec.maxLifetimeS))],
      WorkingDir: spec.workdir,
      Env: envList(spec.env),
      Labels: spec.role === 'build' ? {} : sandboxLabels({ serverId: this.serverId, episodeId: spec.episodeId, role: spec.role, expiresAt }),
      NetworkDisabled: true,
      StopTimeout: 1,
      HostConfig: {
        AutoRemove: true,
        NetworkMode: 'none',
        Memory: spec.limits.memoryBytes,
        MemorySwap: spec.limits.memoryBytes,
        NanoCpus: spec.limits.nanoCpus,
        PidsLimit: spec.limits.pidsLimit,
        SecurityOpt: spec.role === 'build' ? ['no-new-privileges'] : ['no-new-privileges', `seccomp=${SANDBOX_SECCOMP_PROFILE}`],
        CapDrop: ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SYS_CHROOT'],
        ...(this.ociRuntime ? { Runtime: this.ociRuntime } : {}),
      },
    };
    if (spec.limits.diskBytes > 0 && (await this.storageQuotaSupported())) {
      options.HostConfig = { ...options.HostConfig, StorageOpt: { size: String(spec.limits.diskBytes) } };
    }
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(options);
    } catch (error) {
      if (options.HostConfig?.StorageOpt && /storage-?opt/i.test(String(error))) {
        // xfs without pquota, for one: the watchdog alone keeps the limit.
        this.storageQuota = false;
        return this.createOnce(spec, signal);
      }
      if (engineUnreachable(error)) throw new UnavailableError(`the container engine does not answer (${String(error)}); try again later`);
      if (statusCodeOf(error) !== 404) {
        throw new InfraError(`cannot create a container from ${spec.image}: ${String(error)}`, { cause: error });
      }
      // Only a missing image costs a look-up: the usual Reset path stays one create and one start.
      await this.ensureImage(spec.image);
      try {
        container = await this.docker.createContainer(options);
      } catch (retryError) {
        throw new InfraError(`cannot create a container from ${spec.image}: ${String(retryError)}`, { cause: retryError });
      }
    }
    const sandbox = new DockerSandbox(container, spec, this.events, this.disk);
    this.disk.watch(container, spec.role === 'build' ? 0 : spec.limits.diskBytes);
    try {
      await container.start();
    } catch (error) {
      await sandbox.remove();
      throw new InfraError(`cannot start a container from ${spec.image}: ${String(error)}`, { cause: error });
    }
    if (signal?.aborted) {
      await sandbox.remove();
      throw abortReason(signal);
    }
    return sandbox;
  }

  private async listManaged(labels: string[]): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=true`, ...labels] } });
  }

  private async removeAll(infos: Docker.ContainerInfo[]): Promise<number> {
    const results = await Promise.allSettled(infos.map((info) => removeContainer(this.docker.getContainer(info.Id))));
    return results.filter((r) => r.status === 'fulfilled').length;
  }

  async removeServerContainers(keep: ReadonlySet<string> = new Set()): Promise<number> {
    const infos = await this.listManaged([`${LABEL_SERVER}=${this.serverId}`]);
    return this.removeAll(infos.filter((info) => !keep.has(info.Id)));
  }

  async serverContainers(): Promise<ServerContainer[]> {
    const infos = await this.listManaged([`${LABEL_SERVER}=${this.serverId}`]);
    return infos.map((info) => ({
      id: info.Id,
      episodeId: info.Labels[LABEL_EPISODE] ?? '',
      role: info.Labels[LABEL_ROLE] ?? '',
      running: info.State === 'running',
    }));
  }

  /**
   * The sandbox of a container an earlier run of this server id started (a restart re-adopting
   * its episodes): nothing is created; the disk watchdog takes it back under its quota.
   */
  adopt(containerId: string, spec: SandboxSpec): Sandbox {
    const container = this.docker.getContainer(containerId);
    this.disk.watch(container, spec.limits.diskBytes);
    return new DockerSandbox(container, spec, this.events, this.disk);
  }

  async removeExpired(now: Date = new Date()): Promise<number> {
    const infos = await this.listManaged([]);
    return this.removeAll(infos.filter((info) => isExpired(info.Labels, now)));
  }

  async listContainers(filter: { episodeId?: string } = {}): Promise<string[]> {
    const labels = [`${LABEL_SERVER}=${this.serverId}`];
    if (filter.episodeId !== undefined) labels.push(`${LABEL_EPISODE}=${filter.episodeId}`);
    const infos = await this.listManaged(labels);
    return infos.map((info) => info.Id);
  }
}

async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    const code = statusCodeOf(error);
    // 404: already gone; 409: AutoRemove is already removing it.
    if (code === 404 || code === 409) return;
    throw new InfraError(`cannot remove container ${container.id}: ${String(error)}`, { cause: error });
  }
}

/** The engine's socket refused or vanished: an outage, not a failure of this request. */
function engineUnreachable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'EACCES';
}

class DockerSandbox implements Sandbox {
  private removed = false;

  constructor(
    private readonly container: Docker.Container,
    readonly spec: SandboxSpec,
    private readonly events: ContainerEvents,
    private readonly disk: DiskWatchdog,
  ) {}

  async fate(waitMs?: number): Promise<ContainerFate | undefined> {
    const diskOverrun = this.disk.overrun(this.container.id);
    const fate = await this.events.fate(this.container.id, waitMs);
    if (!diskOverrun) return fate;
    return { ownOutOfMemory: false, exitCode: fate?.exitCode ?? 137, diskOverrun };
  }

  get id(): string {
    return this.container.id;
  }

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    const hasStdin = options.stdin !== undefined;
    let exec: Docker.Exec;
    let stream: Duplex;
    try {
      exec = await this.container.exec({
        Cmd: [...argv],
        AttachStdin: hasStdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        WorkingDir: options.workdir ?? this.spec.workdir,
        Env: envList(options.env),
      });
      stream = (await exec.start({ hijack: true, stdin: hasStdin }));
    } catch (error) {
      throw new InfraError(`cannot exec in sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
    const sink = new CappedOutput(options.outputLimitBytes ?? DEFAULT_EXEC_OUTPUT_LIMIT);
    const errSink = new CappedOutput(options.separateStderr ? 64 * 1024 : 2);
    const writer = capturingWritable(sink);
    demux(this.container, stream, writer, options.separateStderr ? capturingWritable(errSink) : writer);
    if (hasStdin) stream.end(options.stdin);

    const timedOut = await waitForEnd(stream, options.timeoutMs, options.signal);
    if (timedOut) stream.destroy();
    const exitCode = timedOut ? -1 : await exitCodeOf(exec);
    return {
      exitCode,
      output: sink.bytes(),
      stderr: options.separateStderr ? errSink.render() : '',
      outputBytes: sink.totalBytes,
      omittedBytes: sink.omittedBytes,
      timedOut,
      durationMs: Date.now() - started,
    };
  }

  async attach(
    argv: readonly string[],
    options: { workdir?: string; env?: Readonly<Record<string, string>> } = {},
  ): Promise<AttachedProcess> {
    try {
      const exec = await this.container.exec({
        Cmd: [...argv],
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        WorkingDir: options.workdir ?? this.spec.workdir,
        Env: envList(options.env),
      });
      const stream = (await exec.start({ hijack: true, stdin: true }));
      const output = new PassThrough();
      demux(this.container, stream, output, output);
      stream.on('end', () => output.end());
      stream.on('close', () => output.end());
      stream.on('error', (error) => output.destroy(error));
      return {
        stream,
        output,
        exitCode: async () => {
          const info = await exec.inspect();
          return info.Running ? null : (info.ExitCode ?? null);
        },
      };
    } catch (error) {
      throw new InfraError(`cannot attach to sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async putFiles(files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>): Promise<void> {
    const pack = tarPack();
    const directories = new Set<string>();
    for (const file of files) {
      const parts = file.path.replace(/^\/+/, '').split('/');
      for (let i = 1; i < parts.length; i++) directories.add(parts.slice(0, i).join('/'));
    }
    for (const dir of [...directories].sort()) pack.entry({ name: `${dir}/`, type: 'directory', mode: 0o755 });
    for (const file of files) {
      const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
      pack.entry({ name: file.path.replace(/^\/+/, ''), mode: file.mode ?? 0o644 }, content);
    }
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    await this.putArchive(Buffer.concat(chunks), '/');
  }

  async putArchive(archive: Buffer | NodeJS.ReadableStream, path: string): Promise<void> {
    try {
      await this.container.putArchive(archive, { path });
    } catch (error) {
      throw new InfraError(`cannot copy an archive into sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async changes(): Promise<Array<{ path: string; kind: 'modified' | 'added' | 'deleted' }>> {
    const kinds = ['modified', 'added', 'deleted'] as const;
    const list = ((await this.container.changes()) ?? []) as Array<{ Path: string; Kind: number }>;
    return list.map((c) => ({ path: c.Path, kind: kinds[c.Kind] ?? 'modified' }));
  }

  async statPath(path: string): Promise<{ size: number; isFile: boolean; isSymlink: boolean } | undefined> {
    try {
      const response = (await this.container.infoArchive({ path })) as unknown as { headers?: Record<string, string>; resume?: () => void };
      response.resume?.();
      const header = response.headers?.['x-docker-container-path-stat'];
      if (!header) return undefined;
      const stat = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { size: number; mode: number };
      // Go's os.FileMode: type bits dir 1<<31, symlink 1<<27, device 1<<26, pipe 1<<25, socket 1<<24,
      // char device 1<<21, irregular 1<<19; none of them set: a regular file.
      const mode = stat.mode >>> 0;
      const typeBits = (1 << 31) >>> 0 | (1 << 27) | (1 << 26) | (1 << 25) | (1 << 24) | (1 << 21) | (1 << 19);
      return { size: stat.size, isFile: (mode & typeBits) === 0, isSymlink: (mode & (1 << 27)) !== 0 };
    } catch (error) {
      if (statusCodeOf(error) === 404) return undefined;
      throw new InfraError(`cannot stat ${path} in sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async readArchive(path: string, maxBytes: number): Promise<Buffer> {
    const stream = (await this.container.getArchive({ path })) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
    const parts: Buffer[] = [];
    let total = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        stream.destroy?.();
        throw new Error(`${path} is larger than ${maxBytes} bytes`);
      }
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  }

  async raisePidsLimit(extra: number): Promise<() => Promise<void>> {
    const base = this.spec.limits.pidsLimit;
    await this.container.update({ PidsLimit: base + extra });
    return async () => {
      await this.container.update({ PidsLimit: base }).catch(() => undefined);
    };
  }

  async isRunning(): Promise<boolean> {
    try {
      const info = await this.container.inspect();
      return info.State.Running;
    } catch (error) {
      if (statusCodeOf(error) === 404) return false;
      throw new InfraError(`cannot inspect sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async isPaused(): Promise<boolean> {
    try {
      const info = await this.container.inspect();
      return info.State.Paused;
    } catch {
      return false; // gone or unreachable: other checks say which
    }
  }

  async remove(): Promise<void> {
    if (this.removed) return;
    await removeContainer(this.container);
    this.removed = true;
    this.disk.forget(this.container.id);
  }
}

/** docker-modem's demultiplexer of the 8-byte-header stdout/stderr framing (untyped in @types/dockerode). */
function demux(container: Docker.Container, stream: Duplex, stdout: Writable, stderr: Writable): void {
  (container.modem as { demuxStream(s: Duplex, out: Writable, err: Writable): void }).demuxStream(stream, stdout, stderr);
}

/** Resolves true when the timeout (or abort) came first, false when the stream ended. */
function waitForEnd(stream: Duplex, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (timedOut: boolean): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onEnd);
      resolve(timedOut);
    };
    const onEnd = (): void => finish(false);
    const onAbort = (): void => finish(true);
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onEnd);
    if (timeoutMs !== undefined) timer = setTimeout(() => finish(true), timeoutMs);
    if (signal) {
      if (signal.aborted) finish(true);
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

/** The exec's exit code; the stream can end a moment before Docker marks the exec finished. */
async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode ?? -1;
    await new Promise((r) => setTimeout(r, 10));
  }
  return -1;
}
