import type Docker from 'dockerode';
import { PassThrough, type Duplex } from 'node:stream';
import { InfraError } from '../common/errors.js';
import { demux, removeContainer } from './docker-exec.js';
import { sandboxLabels } from './labels.js';
import type { BesideOptions, BesideResult, SandboxSpec } from './sandbox.js';

/**
 * Which of the sandbox's namespaces the helper joins: its process table (to watch and signal its
 * processes), or its network namespace (to configure it; see offline-network/).
 */
export type HelperShare = 'pid' | 'network';

/**
 * How long a helper's removal is waited for before the caller goes on: a helper held in its start
 * (its first process stopped by the sandbox's) is removed only once that process ends, which the
 * sandbox's own end brings about; the removal goes on meanwhile, and the helper's expiry label
 * has the janitor remove it should the server end first.
 */
const REMOVAL_WAIT_MS = 3_000;

/** Where the helper finds its programs: never the agent's PATH, never the agent's files. */
const HELPER_ENV = ['PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'LANG=C.UTF-8'];

/**
 * Runs `argv` in a fresh container beside a sandbox: from the sandbox's own image as the engine
 * holds it (pristine: nothing the agent wrote to its filesystem, no binary, library, preload or
 * shim it planted, is in it), sharing the sandbox's process table so it can see and signal the
 * sandbox's processes, in a cgroup of its own (a fork bomb that filled the sandbox's pid limit does
 * not stop it), with no network and a read-only root. Lines it prints go to `answer`, whose reply
 * (if any) is written to its stdin. Throws InfraError only when the engine cannot run it.
 */
export async function runBeside(
  docker: Docker,
  target: { id: string; spec: SandboxSpec; serverId: string; ociRuntime: string | undefined; owner?: string | undefined },
  argv: readonly string[],
  options: BesideOptions,
  share: HelperShare = 'pid',
): Promise<BesideResult> {
  let container: Docker.Container;
  try {
    container = await docker.createContainer({
      Image: target.spec.image,
      Entrypoint: [''],
      Cmd: [...argv],
      Env: HELPER_ENV,
      WorkingDir: '/',
      Labels: sandboxLabels({
        serverId: target.serverId,
        episodeId: target.spec.episodeId,
        role: 'helper',
        expiresAt: new Date(Date.now() + 600_000),
        owner: target.owner,
      }),
      NetworkDisabled: share !== 'network',
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      // A removal kills at once on every engine (Podman's waits out the stop timeout first).
      StopTimeout: 0,
      HostConfig: {
        ...(share === 'pid' ? { PidMode: `container:${target.id}`, NetworkMode: 'none' } : { NetworkMode: `container:${target.id}` }),
        ReadonlyRootfs: true,
        Memory: 128 * 1024 ** 2,
        MemorySwap: 128 * 1024 ** 2,
        PidsLimit: 32,
        // The engine's default capabilities (KILL among them: it signals the agent's processes
        // whatever user they switched to) plus SYS_PTRACE, which no sandbox holds: the helper's
        // capabilities are then never a subset of the agent's, so the agent's processes cannot open
        // the helper's /proc/<pid>/mem or /proc/<pid>/root (the kernel's ptrace access check; with
        // only KILL, a sandbox process could open the killer's memory read-write).
        // 'network': NET_ADMIN in the sandbox's network namespace alone, to set its routes.
        CapAdd: share === 'pid' ? ['SYS_PTRACE'] : ['NET_ADMIN'],
        SecurityOpt: ['no-new-privileges'],
        LogConfig: { Type: 'none', Config: {} },
        ...(target.ociRuntime ? { Runtime: target.ociRuntime } : {}),
      },
    });
  } catch (error) {
    throw new InfraError(`cannot create a helper beside sandbox ${target.id.slice(0, 12)}: ${String(error)}`, { cause: error });
  }
  // One limit for the whole run, its attach and start included: the helper's first process joins
  // the sandbox's process table while it starts, where the agent's processes can stop it (SIGSTOP),
  // and the engine then waits on it for as long as it stays stopped: Docker's start does, and
  // Podman's attach already does (it creates the container in the runtime to attach to it).
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.timeoutMs)));
  let stream: Duplex | undefined;
  try {
    const attaching = container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    }) as unknown as Promise<Duplex>;
    const attach = await Promise.race([attaching.then((s) => ({ stream: s })), timedOut]);
    if (attach === 'timeout') {
      // Answered late, if ever: nothing reads it.
      attaching.then((late) => late.destroy()).catch(() => undefined);
      return { exitCode: -1, timedOut: true };
    }
    stream = attach.stream;
    const attached = stream;
    const output = new PassThrough();
    demux(container, attached, output, output);
    let pending = '';
    output.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        const reply = options.answer?.(line);
        if (reply !== undefined) attached.write(`${reply}\n`);
      }
      // Bounded: a helper has nothing long to say.
      if (pending.length > 4096) pending = '';
    });
    const started = container.start().then(
      () => 'started' as const,
      (error: unknown) => ({ error }),
    );
    const start = await Promise.race([started, timedOut]);
    if (start === 'timeout') return { exitCode: -1, timedOut: true };
    if (start !== 'started') {
      throw new InfraError(`cannot start a helper beside sandbox ${target.id.slice(0, 12)}: ${String(start.error)}`, {
        cause: start.error,
      });
    }
    const ended = (container.wait() as Promise<{ StatusCode?: number }>).then(
      (r) => r.StatusCode ?? -1,
      () => -1,
    );
    const first = await Promise.race([ended, timedOut]);
    return first === 'timeout' ? { exitCode: -1, timedOut: true } : { exitCode: first, timedOut: false };
  } finally {
    clearTimeout(timer);
    stream?.destroy();
    await removedWithin(container, REMOVAL_WAIT_MS);
  }
}

/** Removes the helper, waiting at most `ms` for the engine (the removal goes on past it). */
async function removedWithin(container: Docker.Container, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const removal = removeContainer(container).catch(() => undefined);
  await Promise.race([removal, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
