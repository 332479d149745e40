import { randomUUID } from 'node:crypto';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { InfraError } from '../../common/errors.js';

/** The engines whose Docker-compatible API this provider speaks. */
export type EngineKind = 'docker' | 'podman';

/** A create request as the engine is to receive it, and what to undo once the engine has it. */
export interface AdaptedCreate {
  readonly options: Docker.ContainerCreateOptions;
  /** Removes what the adaptation left on the host (a profile file); never throws. */
  readonly cleanup: () => Promise<void>;
}

/**
 * What differs between the engines behind the one Docker API, learnt from the engine once (its
 * version call names it) and applied here, so nothing above the sandbox contract knows which
 * engine runs the sandboxes:
 * - Podman's compatible API reads `seccomp=` as a path on the engine's host, never as the profile
 *   itself (Docker's API takes the JSON): the profile is written to a file readable by the engine's
 *   user (a rootless engine runs as another user), the create is sent, and the file is removed; the
 *   engine copied the profile into the container's OCI spec at create, which its execs use too.
 * - The disk quota: only Docker's drivers with a per-container size option take StorageOpt.size;
 *   Podman's overlay takes it only on xfs with project quota, which it does not report in its
 *   info, so it is not asked and the disk watchdog alone keeps the limit.
 * - Podman's forced removal of a running container first stops it and waits its StopTimeout
 *   (1 s: the keeper ignores SIGTERM) before the kill; Docker's kills at once. Sandboxes on Podman
 *   get a StopTimeout of 0, so a removal is as quick as on Docker (1.1 s measured, then 0.1 s).
 * - A committed image keeps the build container's `[""]` entrypoint on Podman (Docker drops it):
 *   the commit resets it explicitly there.
 * - Rootless Podman on cgroup v1 ignores every resource limit (memory, CPU, pids: its log says
 *   "Resource limits are not supported and ignored on cgroups V1 rootless systems"); a sandbox
 *   there would hold no limit at all, so none is created (InfraError, the operator's to fix:
 *   rootful Podman, or cgroup v2 with delegation).
 */
export class EngineDialect {
  private kindKnown: EngineKind | undefined;
  private limitless: string | undefined | null = null;
  private storageQuota: boolean | undefined;
  private ipv6LoopbackRefused = false;

  constructor(private readonly docker: Docker) {}

  async kind(): Promise<EngineKind> {
    if (this.kindKnown === undefined) {
      const version = (await this.docker.version()) as { Components?: Array<{ Name?: string }> };
      this.kindKnown = /podman/i.test(version.Components?.[0]?.Name ?? '') ? 'podman' : 'docker';
    }
    return this.kindKnown;
  }

  /**
   * The engine's `top` arguments that list a container's processes as pid, ppid, state, (Docker)
   * pending signals and command line, read by the engine from the kernel. Docker runs its host's
   * ps for any arguments. Podman (before 4.6) runs ps-style flags with the container's own `ps`,
   * which the sandbox's root can replace with one listing what it likes; bare descriptors it reads
   * itself from /proc (psgo), which has none for pending signals.
   */
  async processListArgs(): Promise<string> {
    return (await this.kind()) === 'podman' ? 'pid,ppid,state,args' : '-o pid,ppid,stat,pending,args';
  }

  /** The engine's `top` arguments that list a container's processes by their pids on the engine's host. */
  async hostPidArgs(): Promise<string> {
    return (await this.kind()) === 'podman' ? 'hpid' : '-o pid';
  }

  /**
   * Drivers with a per-container size option enforce the disk limit inside the container (a write
   * past it fails with ENOSPC); overlay2 only on xfs mounted with pquota, which create reports.
   */
  async storageQuotaSupported(): Promise<boolean> {
    if (this.storageQuota === undefined) {
      if ((await this.kind().catch(() => 'docker')) === 'podman') return (this.storageQuota = false);
      const info = (await this.docker.info().catch(() => ({}))) as { Driver?: string; DriverStatus?: Array<[string, string]> };
      const backing = (info.DriverStatus ?? []).find(([key]) => key === 'Backing Filesystem')?.[1] ?? '';
      const driver = info.Driver ?? '';
      this.storageQuota =
        ['btrfs', 'zfs', 'devicemapper', 'windowsfilter'].includes(driver) || (driver === 'overlay2' && backing === 'xfs');
    }
    return this.storageQuota;
  }

  /**
   * Creates the container in this engine's dialect, with the disk quota's StorageOpt where the
   * driver takes it. The engine's errors come back unchanged; InfraError for an engine that would
   * hold no limit.
   */
  async createContainer(requested: Docker.ContainerCreateOptions, diskBytes: number): Promise<Docker.Container> {
    const sized = diskBytes > 0 && (await this.storageQuotaSupported());
    const withQuota = sized
      ? { ...requested, HostConfig: { ...requested.HostConfig, StorageOpt: { size: String(diskBytes) } } }
      : requested;
    const { options, cleanup } = await this.adaptCreate(withQuota);
    try {
      return await this.docker.createContainer(options);
    } catch (error) {
      if (!sized || !/storage-?opt/i.test(String(error))) throw error;
      this.storageQuota = false; // xfs without pquota, for one: the watchdog alone keeps the limit
      return await this.createContainer(requested, diskBytes);
    } finally {
      await cleanup();
    }
  }

  /**
   * The create request without the IPv6 loopback sysctls once this engine refused them (a kernel
   * without IPv6, a runtime that takes no sysctls): a sandbox there has IPv4 loopback only.
   */
  withoutRefusedSysctls(options: Docker.ContainerCreateOptions): Docker.ContainerCreateOptions {
    if (!this.ipv6LoopbackRefused || !options.HostConfig?.Sysctls) return options;
    const hostConfig = { ...options.HostConfig };
    delete hostConfig.Sysctls;
    return { ...options, HostConfig: hostConfig };
  }

  /**
   * Whether a failed start was the engine refusing the sandbox's IPv6 loopback sysctls; if so it is
   * remembered, and every later create leaves them out (asked of the real start, not of a probe
   * container: nothing extra is created on engines that take them).
   */
  refusedIpv6Loopback(options: Docker.ContainerCreateOptions, error: unknown): boolean {
    if (!options.HostConfig?.Sysctls || !/sysctl|disable_ipv6|net\.ipv6/i.test(String(error))) return false;
    this.ipv6LoopbackRefused = true;
    return true;
  }

  /** The create request in this engine's dialect. */
  async adaptCreate(options: Docker.ContainerCreateOptions): Promise<AdaptedCreate> {
    // An engine that does not answer is not told apart here: the create that follows fails as unreachable.
    if ((await this.kind().catch(() => undefined)) !== 'podman') return { options, cleanup: async () => undefined };
    const unlimited = await this.limitsIgnored();
    if (unlimited) throw new InfraError(`this engine cannot hold a sandbox's limits: ${unlimited}`);
    // Podman's compatible API ignores HostConfig.MaskedPaths; its own `mask=` option adds paths to
    // its default list (checked: /proc/1/mem then reads as /dev/null).
    const { MaskedPaths: masked, ...hostConfig } = options.HostConfig ?? {};
    const security = [
      ...((hostConfig.SecurityOpt as string[] | undefined) ?? []),
      ...(masked && masked.length > 0 ? [`mask=${masked.join(':')}`] : []),
    ];
    const inline = security.find((entry) => entry.startsWith('seccomp={'));
    if (inline === undefined)
      return {
        options: { ...options, StopTimeout: 0, HostConfig: { ...hostConfig, SecurityOpt: security } },
        cleanup: async () => undefined,
      };
    const path = join(tmpdir(), `swe-env-seccomp-${randomUUID()}.json`);
    await writeFile(path, inline.slice('seccomp='.length));
    await chmod(path, 0o644); // whatever the umask: a rootless engine reads it as its own user
    const SecurityOpt = security.map((entry) => (entry === inline ? `seccomp=${path}` : entry));
    return {
      options: { ...options, StopTimeout: 0, HostConfig: { ...hostConfig, SecurityOpt } },
      cleanup: () => rm(path, { force: true }),
    };
  }

  /** Why Podman would ignore the sandbox's limits, or undefined when it holds them (its own info, asked once). */
  private async limitsIgnored(): Promise<string | undefined> {
    if (this.limitless === null) {
      const info = await new Promise<{ host?: { cgroupVersion?: string; security?: { rootless?: boolean } } }>((resolve, reject) => {
        const modem = this.docker.modem as { dial(options: object, callback: (error: unknown, data: unknown) => void): void };
        modem.dial({ path: '/v4.0.0/libpod/info', method: 'GET', statusCodes: { 200: true } }, (error, data) =>
          error ? reject(error instanceof Error ? error : new Error('the engine did not say what it is')) : resolve(data as never),
        );
      });
      const rootlessV1 = info.host?.security?.rootless === true && info.host.cgroupVersion === 'v1';
      this.limitless = rootlessV1 ? 'rootless Podman on cgroup v1 ignores memory, CPU and pid limits' : undefined;
    }
    return this.limitless;
  }

  /** Dockerfile instructions a commit adds so the image is the same on either engine. */
  async commitChanges(): Promise<string[]> {
    return (await this.kind()) === 'podman' ? ['ENTRYPOINT []'] : [];
  }
}
