import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { SANDBOX_SECCOMP_PROFILE } from './seccomp.js';
import { KEEPER_SCRIPT } from './shell-scripts.js';
import { envList } from './docker-exec.js';
import { buildContainerName, sandboxLabels } from './labels.js';

/** Numbers this process's build containers (their names must differ). */
let buildCount = 0;
import type { SandboxIoLimits, SandboxSpec } from './sandbox.js';

/**
 * The engine-side log of a sandbox is off: nothing here reads it (commands' output comes back over
 * their exec streams), and anything the agent writes to PID 1's stdout or stderr (`/proc/1/fd/1`)
 * would otherwise grow a file on the engine's host outside every quota (2 GB in 41 s).
 */
export const SANDBOX_LOG_CONFIG = Object.freeze({ Type: 'none', Config: {} });

/**
 * A container's host name like the engine's own choice (the id's first twelve hex digits, known
 * only after creation), never all digits: the resolver reads such a name as a number, not as the
 * hosts file's entry, and a server a test starts on the container's own name fails to bind (one
 * name in 280).
 */
export function containerHostname(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const name = random(6).toString('hex');
    if (!/^[0-9]+$/.test(name)) return name;
  }
}
/** What the engine is asked to create for a sandbox (the disk quota's StorageOpt is added by the provider). */
export function sandboxCreateOptions(
  spec: SandboxSpec,
  serverId: string,
  ociRuntime: string | undefined,
  owner?: string,
): Docker.ContainerCreateOptions {
  const expiresAt = new Date(Date.now() + spec.maxLifetimeS * 1000);
  const hostname = containerHostname();
  return {
    ...(spec.role === 'build' && owner ? { name: buildContainerName(owner, ++buildCount) } : {}),
    Image: spec.image,
    // PID 1 is the keeper: it outlives anything a command can do inside, and ends the container
    // after its maximum life even if this server is killed; AutoRemove then deletes it. It runs as
    // the command with the image's entrypoint reset ([""] means none), so a build container
    // committed into an image leaves no entrypoint behind.
    Entrypoint: [''],
    Cmd: ['bash', '--noprofile', '--norc', '-c', KEEPER_SCRIPT, 'swe-env-keeper', String(Math.ceil(spec.maxLifetimeS))],
    WorkingDir: spec.workdir,
    Env: envList(spec.env),
    Labels: spec.role === 'build' ? {} : sandboxLabels({ serverId, episodeId: spec.episodeId, role: spec.role, expiresAt, owner }),
    // Not NetworkDisabled: with it the engine writes no hosts file and `localhost` resolves to
    // nothing (redis' and valkey's test clients, servers a test starts on localhost, a model
    // checking its fix against a local server). Network 'none' still gives loopback only, and the
    // container's own name resolves to loopback as in the harness's containers.
    NetworkDisabled: false,
    ...(hostNetwork(spec) ? {} : { Hostname: hostname }),
    StopTimeout: 1,
    HostConfig: {
      AutoRemove: true,
      LogConfig: { ...SANDBOX_LOG_CONFIG },
      NetworkMode: hostNetwork(spec) ? 'host' : 'none',
      ...(hostNetwork(spec) ? {} : { ExtraHosts: [`${hostname}:127.0.0.1`], Sysctls: { ...IPV6_LOOPBACK_SYSCTLS } }),
      Memory: spec.limits.memoryBytes,
      MemorySwap: spec.limits.memoryBytes,
      NanoCpus: spec.limits.nanoCpus,
      PidsLimit: spec.limits.pidsLimit,
      ...(spec.limits.io ? ioThrottle(spec.limits.io) : {}),
      SecurityOpt: spec.role === 'build' ? ['no-new-privileges'] : ['no-new-privileges', `seccomp=${SANDBOX_SECCOMP_PROFILE}`],
      CapDrop: ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SYS_CHROOT'],
      ...(spec.role === 'build' ? {} : { MaskedPaths: [...SANDBOX_MASKED_PATHS] }),
      ...(ociRuntime ? { Runtime: ociRuntime } : {}),
    },
  };
}

/**
 * Paths the runtime covers with /dev/null: the engine's own list (it is replaced, not extended, by
 * a list of ours) and PID 1's memory. The keeper (PID 1) is dumpable and runs as the agent's uid,
 * so a root process of the agent's could write its code through /proc/1/mem (ptrace and
 * process_vm_writev are already refused by the seccomp profile) and stop the container: a dead
 * sandbox reads as the environment's failure, a masked INFRA_ERROR on demand. Unmounting the cover
 * takes CAP_SYS_ADMIN and umount, which the sandbox does not have.
 */
export const SANDBOX_MASKED_PATHS: readonly string[] = Object.freeze([
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/proc/1/mem',
  '/proc/1/task/1/mem',
]);

/**
 * Docker starts a container on network 'none' with IPv6 off, loopback included (no `::1`), where
 * the harness's containers (the default bridge network) have it: code that binds or connects to
 * `::1`, or a test that checks the host can (fluentd's `ipv6_enabled?`), passes there and not here.
 * Loopback only: network 'none' has no other interface. An engine or kernel that cannot set these
 * refuses the container's start; the provider then creates it again without them (EngineDialect).
 */
export const IPV6_LOOPBACK_SYSCTLS: Readonly<Record<string, string>> = Object.freeze({
  'net.ipv6.conf.all.disable_ipv6': '0',
  'net.ipv6.conf.lo.disable_ipv6': '0',
});

/** Only a build container may be given the host's network; a sandbox an agent or grader runs in never. */
function hostNetwork(spec: SandboxSpec): boolean {
  return spec.role === 'build' && spec.network === 'host';
}

/** The engine's block I/O throttles for a sandbox's limits: one entry per kind that has one. */
function ioThrottle(io: SandboxIoLimits): Record<string, Array<{ Path: string; Rate: number }>> {
  const kinds = {
    BlkioDeviceReadBps: io.readBps,
    BlkioDeviceWriteBps: io.writeBps,
    BlkioDeviceReadIOps: io.readIops,
    BlkioDeviceWriteIOps: io.writeIops,
  };
  return Object.fromEntries(
    Object.entries(kinds)
      .filter(([, rate]) => rate > 0)
      .map(([kind, rate]) => [kind, [{ Path: io.device, Rate: rate }]]),
  );
}
