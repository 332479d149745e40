import Docker from 'dockerode';
import { ContainerEvents } from './container-events.js';
import { DiskWatchdog } from './disk-watchdog.js';
import { InfraError, UnavailableError } from '../common/errors.js';
import { imageExists, imageTags } from './docker-images.js';
import { ImageSupply, DEFAULT_IMAGE_SUPPLY, type ImageSupplyHooks, type ImageSupplyOptions } from './images/image-supply.js';
import { abortReason } from '../common/abort.js';
import { sandboxCreateOptions } from './container-options.js';
import { DockerSandbox } from './docker-container.js';
import { engineUnreachable, statusCodeOf } from './docker-exec.js';
import { ManagedContainers } from './managed-containers.js';
import { EngineIdentitySource } from './engine-identity.js';
import { EngineDialect } from './engines/engine-dialect.js';
import { LABEL_SERVER } from './labels.js';
import { processIdentity } from '../common/process-identity.js';
import type { Sandbox, SandboxProvider, SandboxSpec, ServerContainer } from './sandbox.js';

export class DockerSandboxProvider implements SandboxProvider {
  readonly docker: Docker;
  /** The engine's oom/die events for this server's containers (started by watchEvents). */
  readonly events: ContainerEvents;
  /** Keeps writable layers under limits.diskBytes (started by watchDisk). */
  readonly disk: DiskWatchdog;
  /** Task images: pulls (single-flight, bounded, retried) and the bounded cache. */
  readonly images: ImageSupply;
  private readonly managed: ManagedContainers;
  /** Which engine and runtime serve the sandboxes. */
  readonly identity: EngineIdentitySource;
  /** What differs between Docker's engine and Podman's behind the one API (seccomp, disk quota). */
  readonly dialect: EngineDialect;

  constructor(
    readonly serverId: string,
    options: {
      socketPath?: string;
      ociRuntime?: string;
      ownedByThisProcess?: boolean;
      images?: Partial<ImageSupplyOptions>;
      imageHooks?: ImageSupplyHooks;
    } = {},
  ) {
    this.ociRuntime = options.ociRuntime;
    this.ownerProcess = options.ownedByThisProcess ? processIdentity() : undefined;
    this.docker = new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
    this.events = new ContainerEvents(this.docker, `${LABEL_SERVER}=${serverId}`);
    this.dialect = new EngineDialect(this.docker);
    this.disk = new DiskWatchdog(this.docker, this.dialect);
    this.managed = new ManagedContainers(this.docker, serverId);
    this.identity = new EngineIdentitySource(this.docker, options.ociRuntime);
    this.images = new ImageSupply(this.docker, { ...DEFAULT_IMAGE_SUPPLY, ...options.images }, options.imageHooks);
  }

  /** Checks every live sandbox's writable layer against its disk limit every interval. */
  watchDisk(intervalMs: number): void {
    this.disk.start(intervalMs);
  }

  hostFreeBytes(): Promise<number | undefined> {
    return this.disk.hostFreeBytes();
  }

  /** Every `repo:tag` the engine holds (one listing; nothing is pulled). */
  imageTags(): Promise<Set<string>> {
    return imageTags(this.docker);
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

  imageExists(image: string): Promise<boolean> {
    return imageExists(this.docker, image);
  }

  /** The image on the engine: pulled, or its pull joined, when missing (see ImagePulls). */
  ensureImage(image: string, signal?: AbortSignal): Promise<void> {
    return this.images.ensure(image, signal);
  }

  /** Evicts unpinned task images (when there is a budget) while the disk stays short. */
  relieveDisk(stillShort: () => Promise<boolean>): Promise<string[]> {
    return this.images.relieveDisk(stillShort);
  }

  /** Keeps a task image from eviction until the returned function is called. */
  pinImage(image: string): () => void {
    return this.images.pin(image);
  }

  /** The engine's OCI runtime for sandboxes (runc by default; crun where registered). */
  private readonly ociRuntime: string | undefined;
  /** A one-shot process's identity on its containers (LABEL_OWNER): they go when it is gone. */
  private readonly ownerProcess: string | undefined;

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
    const options = this.dialect.withoutRefusedSysctls(sandboxCreateOptions(spec, this.serverId, this.ociRuntime, this.ownerProcess));
    const create = (): Promise<Docker.Container> => this.dialect.createContainer(options, spec.limits.diskBytes);
    let container: Docker.Container;
    try {
      container = await create();
    } catch (error) {
      if (error instanceof InfraError) throw error;
      if (engineUnreachable(error)) throw new UnavailableError(`the container engine does not answer (${String(error)}); try again later`);
      if (this.dialect.refusedIpv6Loopback(options, error)) return this.createOnce(spec, signal);
      if (statusCodeOf(error) !== 404) {
        throw new InfraError(`cannot create a container from ${spec.image}: ${String(error)}${ioDeviceHint(spec, error)}`, {
          cause: error,
        });
      }
      // Only a missing image costs a look-up: the usual Reset path stays one create and one start.
      await this.ensureImage(spec.image, signal);
      try {
        container = await create();
      } catch (retryError) {
        throw new InfraError(`cannot create a container from ${spec.image}: ${String(retryError)}`, { cause: retryError });
      }
    }
    const sandbox = new DockerSandbox(container, spec, this.events, this.disk, {
      docker: this.docker,
      serverId: this.serverId,
      ociRuntime: this.ociRuntime,
      process: this.ownerProcess,
      dialect: this.dialect,
    });
    this.disk.watch(container, spec.role === 'build' ? 0 : spec.limits.diskBytes);
    try {
      await container.start();
    } catch (error) {
      await sandbox.remove();
      if (this.dialect.refusedIpv6Loopback(options, error)) return this.createOnce(spec, signal);
      throw new InfraError(`cannot start a container from ${spec.image}: ${String(error)}${ioDeviceHint(spec, error)}`, { cause: error });
    }
    if (spec.network === 'offline' && spec.routeInBackground) sandbox.routeOfflineInBackground();
    else if (spec.network === 'offline') await this.routeOffline(sandbox);
    if (signal?.aborted) {
      await sandbox.remove();
      throw abortReason(signal);
    }
    return sandbox;
  }

  /** An 'offline' sandbox's route, set before anyone uses it; a sandbox that cannot have it is removed. */
  private async routeOffline(sandbox: DockerSandbox): Promise<void> {
    try {
      await sandbox.routeOffline();
    } catch (error) {
      await sandbox.remove();
      throw error;
    }
  }

  removeServerContainers(keep: ReadonlySet<string> = new Set()): Promise<number> {
    return this.managed.removeServerContainers(keep);
  }

  serverContainers(): Promise<ServerContainer[]> {
    return this.managed.serverContainers();
  }

  /**
   * The sandbox of a container an earlier run of this server id started (a restart re-adopting
   * its episodes): nothing is created; the disk watchdog takes it back under its quota.
   */
  adopt(containerId: string, spec: SandboxSpec): Sandbox {
    const container = this.docker.getContainer(containerId);
    this.disk.watch(container, spec.limits.diskBytes);
    return new DockerSandbox(container, spec, this.events, this.disk, {
      docker: this.docker,
      serverId: this.serverId,
      ociRuntime: this.ociRuntime,
      process: this.ownerProcess,
      dialect: this.dialect,
    });
  }

  /**
   * Removes every managed container past its expiry, and every container of a one-shot process
   * (a CLI command) that is gone from this host: any server's sweep and any CLI run reclaim them.
   */
  removeExpired(now: Date = new Date()): Promise<number> {
    return this.managed.removeExpired(now);
  }

  /** Removes this process's build containers (a one-shot command interrupted mid-build). */
  async removeOwnBuilds(): Promise<number> {
    return this.ownerProcess ? this.managed.removeBuildsOf(this.ownerProcess) : 0;
  }

  listContainers(filter: { episodeId?: string } = {}): Promise<string[]> {
    return this.managed.ids(filter);
  }
}

/**
 * What to do when the engine could not find the I/O limits' device (it looks the path up on its own
 * host: Docker when it starts the container, "stat DEVICE: no such file", Podman when it creates it,
 * "could not parse throttle device at DEVICE").
 */
function ioDeviceHint(spec: SandboxSpec, error: unknown): string {
  const device = spec.limits.io?.device;
  if (device === undefined || !String(error).includes(device)) return '';
  return ` (the I/O limits' device ${device} is not a device on the engine's host: give --io-device the block device its storage lies on, e.g. from \`findmnt -no SOURCE --target "$(docker info -f '{{.DockerRootDir}}')"\` run there)`;
}
