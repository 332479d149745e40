import type Docker from 'dockerode';
import { Writable, type Duplex } from 'node:stream';
import { InfraError } from '../common/errors.js';
import type { CappedOutput } from './output-buffer.js';

/** The Docker engine's API plumbing shared by the provider and its sandboxes. */

export function envList(env: Readonly<Record<string, string>> | undefined): string[] | undefined {
  if (!env) return undefined;
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

export function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** A writable that feeds a CappedOutput (docker-modem demultiplexes into two of these). */
export function capturingWritable(sink: CappedOutput): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sink.push(chunk);
      callback();
    },
  });
}

/** How long a removal the engine already has in hand (AutoRemove's, after the container ended) is waited for. */
const REMOVAL_IN_PROGRESS_MS = 30_000;

/** Removes a container and returns once the engine no longer lists it. */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    const code = statusCodeOf(error);
    if (code === 404) return; // already gone
    // 409: AutoRemove is already removing it (the container ended by itself): it is still listed
    // until that removal is done, so "removed" would be untrue for a moment.
    if (code === 409 && (await goneWithin(container, REMOVAL_IN_PROGRESS_MS))) return;
    throw new InfraError(`cannot remove container ${container.id}: ${String(error)}`, { cause: error });
  }
}

async function goneWithin(container: Docker.Container, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await container.inspect();
    } catch (error) {
      if (statusCodeOf(error) === 404) return true;
    }
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The engine's socket refused or vanished: an outage, not a failure of this request. */
export function engineUnreachable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'EACCES';
}

/** docker-modem's demultiplexer of the 8-byte-header stdout/stderr framing (untyped in @types/dockerode). */
export function demux(container: Docker.Container, stream: Duplex, stdout: Writable, stderr: Writable): void {
  (container.modem as { demuxStream(s: Duplex, out: Writable, err: Writable): void }).demuxStream(stream, stdout, stderr);
}

/** Resolves true when the timeout (or abort) came first, false when the stream ended. */
export function waitForEnd(stream: Duplex, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
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

/** How an exec ended: its exit code, and whether the runtime ever started its process. */
export interface ExecEnd {
  readonly exitCode: number;
  /** False when the engine says no process was started (Docker sets the exec's Pid once it is). */
  readonly started: boolean;
}

/** The exec's end; the stream can end a moment before Docker marks the exec finished. */
export async function execEndOf(exec: Docker.Exec): Promise<ExecEnd> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Podman forgets an exec with its container (Docker keeps it until the container is removed):
    // the exec of a container that died is not found, and its code is as unknown as on Docker.
    const info = (await exec.inspect().catch((error: unknown) => {
      if (statusCodeOf(error) === 404) return { Running: false, ExitCode: null, Pid: undefined };
      throw error;
    })) as { Running: boolean; ExitCode: number | null; Pid?: number };
    if (!info.Running) return { exitCode: info.ExitCode ?? -1, started: info.Pid !== 0 };
    await new Promise((r) => setTimeout(r, 10));
  }
  return { exitCode: -1, started: true };
}

/**
 * The runtime failed to start the exec's process for a reason of the moment (runc's init lost its
 * pipe, a fork refused while the host was loaded): exit 126 from the engine, no process ever
 * started (so nothing of the command ran), and the runtime's own words. Not a missing or refused
 * program, which fails the same way every time.
 */
export function startFailedForNow(end: ExecEnd, output: string): boolean {
  if (end.started || end.exitCode !== 126) return false;
  return (
    /OCI runtime exec failed/.test(output) && /init-p|connection reset by peer|broken pipe|resource temporarily unavailable/i.test(output)
  );
}
