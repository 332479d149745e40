import { pack as tarPack } from 'tar-stream';
import { InfraError } from '../common/errors.js';
import { CappedOutput } from './output-buffer.js';
import type { AttachedProcess, ExecOptions, ExecResult, Sandbox } from './sandbox.js';
import { EXEC_CHANNEL_SCRIPT } from './shell-scripts.js';

/**
 * Commands run through one process attached to the container (exec-channel.sh), one after another:
 * a fork each inside instead of an exec through the engine. Whoever opens one answers for what may
 * reach it: the process lives in the container, so nothing that could write to its input or read
 * its folder may run while it does (see ChannelledSandbox).
 */

const DEFAULT_OUTPUT_LIMIT = 16 * 1024 * 1024;
const READY_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 30_000;

interface Reply {
  readonly code: number;
  readonly out: Buffer;
  readonly err: Buffer;
}

interface Waiting<T = Reply> {
  resolve(value: T): void;
  reject(error: Error): void;
}

export class ExecChannel {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The reply whose bytes are being read. */
  private body: { code: number; outBytes: number; errBytes: number } | undefined;
  private waiting: Waiting | undefined;
  private lines: Waiting<string>[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private broken: Error | undefined;

  private constructor(
    private readonly process: AttachedProcess,
    private readonly where: string,
  ) {
    process.output.on('data', (chunk: Buffer) => this.take(chunk));
    const end = (error?: Error): void =>
      this.fail(new InfraError(`the exec channel of ${where} ended${error ? `: ${error.message}` : ''}`));
    process.output.on('end', () => end());
    process.output.on('error', end);
  }

  /** Whether the container's tar can take files (putFiles through the channel). */
  hasTar = false;

  /**
   * Starts the channel in `sandbox` with its folder at `dir`; undefined when the image lacks what it
   * needs (bash and coreutils' head, wc, cat, rm, env), so the caller goes on with plain execs.
   */
  static async open(sandbox: Sandbox, dir: string): Promise<ExecChannel | undefined> {
    const attached = await sandbox.attach(['bash', '--noprofile', '--norc', '-c', EXEC_CHANNEL_SCRIPT, 'swe-env-channel', dir], {
      workdir: '/',
    });
    const channel = new ExecChannel(attached, sandbox.id.slice(0, 12));
    const ready = await channel.nextLine(READY_TIMEOUT_MS).catch(() => undefined);
    if (ready === undefined || !ready.startsWith('swe-env-channel ready')) {
      attached.stream.destroy();
      return undefined;
    }
    channel.hasTar = ready.includes('tar');
    return channel;
  }

  /** Runs argv as the engine's exec would (the container's environment plus `env`, in `workdir`). */
  exec(argv: readonly string[], workdir: string, options: ExecOptions): Promise<ExecResult> {
    const stdin = options.stdin === undefined ? Buffer.alloc(0) : Buffer.from(options.stdin);
    return this.serially(async () => {
      const started = Date.now();
      const request = {
        kind: 'x' as const,
        argv: nulList(argv),
        env: nulList(Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`)),
        stdin,
        workdir: Buffer.from(workdir),
        merge: options.separateStderr !== true,
      };
      const reply = await this.request(request, options.timeoutMs, options.signal);
      if (reply === undefined) return timedOut(started);
      const sink = new CappedOutput(options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT);
      sink.push(reply.out);
      const errSink = new CappedOutput(64 * 1024);
      errSink.push(reply.err);
      return {
        exitCode: reply.code,
        output: sink.bytes(),
        stderr: options.separateStderr ? errSink.render() : '',
        outputBytes: sink.totalBytes,
        omittedBytes: sink.omittedBytes,
        timedOut: false,
        durationMs: Date.now() - started,
      };
    });
  }

  /** Writes files as the engine's archive copy would (parents made, each file replaced, root's). */
  putFiles(files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>): Promise<void> {
    return this.serially(async () => {
      const archive = await tarOf(files);
      const request = {
        kind: 'p' as const,
        argv: Buffer.alloc(0),
        env: Buffer.alloc(0),
        stdin: archive,
        workdir: Buffer.from('/'),
        merge: true,
      };
      const reply = await this.request(request, 120_000, undefined);
      if (reply === undefined || reply.code !== 0)
        throw new InfraError(
          `cannot copy files into sandbox ${this.where}: ${reply ? reply.out.toString('utf8').slice(-500) : 'timed out'}`,
        );
    });
  }

  /** Ends the channel and waits until its process is gone (its folder removed). */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    if (this.broken) return;
    const done = this.nextLine(CLOSE_TIMEOUT_MS);
    this.process.stream.write('swe-env-req q 0 0 0 0 0\n');
    const line = await done.catch((error: unknown) => {
      throw new InfraError(`the exec channel of ${this.where} did not end: ${String(error)}`);
    });
    if (line !== 'swe-env-channel done')
      throw new InfraError(`the exec channel of ${this.where} ended with ${JSON.stringify(line.slice(0, 80))}`);
    // Its last line comes just before its exit: gone once the engine says the process ended.
    let gone = false;
    for (let i = 0; i < 1000 && !gone; i++) {
      gone = (await this.process.exitCode().catch(() => -1)) !== null;
      if (!gone) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.destroy();
    if (!gone) throw new InfraError(`the exec channel of ${this.where} said it ended but its process is still running`);
  }

  /** Drops the channel at once (its container is going away). */
  destroy(): void {
    this.broken ??= new InfraError(`the exec channel of ${this.where} is closed`);
    this.process.stream.destroy();
  }

  get open(): boolean {
    return this.broken === undefined;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(() => {
      if (this.broken) throw this.broken;
      return work();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** undefined: timed out or aborted (the channel is dropped: its process is mid-command). */
  private request(
    r: { kind: 'x' | 'p'; argv: Buffer; env: Buffer; stdin: Buffer; workdir: Buffer; merge: boolean },
    timeoutMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Reply | undefined> {
    return new Promise<Reply | undefined>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const giveUp = (): void => {
        finish();
        this.waiting = undefined;
        this.destroy();
        resolve(undefined);
      };
      const finish = (): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
      };
      this.waiting = {
        resolve: (reply) => {
          finish();
          resolve(reply);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      };
      if (signal?.aborted) return giveUp();
      signal?.addEventListener('abort', giveUp, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(giveUp, timeoutMs);
      const header = `swe-env-req ${r.kind} ${r.argv.length} ${r.env.length} ${r.stdin.length} ${r.workdir.length} ${r.merge ? 1 : 0}\n`;
      this.process.stream.write(Buffer.concat([Buffer.from(header), r.argv, r.env, r.stdin, r.workdir]));
    });
  }

  /** Splits the process's output into lines and replies (a reply's bytes may come in many chunks). */
  private take(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.body === undefined) {
        const head = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
        const newline = head.indexOf(10);
        if (newline < 0) {
          this.chunks = [head];
          return;
        }
        const line = head.subarray(0, newline).toString('utf8');
        const rest = head.subarray(newline + 1);
        this.chunks = rest.length > 0 ? [rest] : [];
        this.buffered = rest.length;
        const reply = /^swe-env-rep (-?\d+) (\d+) (\d+)$/.exec(line);
        if (!reply) {
          this.lines.shift()?.resolve(line);
          continue;
        }
        this.body = { code: Number(reply[1]), outBytes: Number(reply[2]), errBytes: Number(reply[3]) };
      }
      const { code, outBytes, errBytes } = this.body;
      if (this.buffered < outBytes + errBytes) return;
      const all = Buffer.concat(this.chunks);
      const rest = all.subarray(outBytes + errBytes);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      this.body = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve({ code, out: all.subarray(0, outBytes), err: all.subarray(outBytes, outBytes + errBytes) });
    }
  }

  private nextLine(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.lines = this.lines.filter((l) => l !== waiter);
        reject(new Error(`no line within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: (line: string): void => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error: Error): void => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (this.broken) return waiter.reject(this.broken);
      this.lines.push(waiter);
    });
  }

  private fail(error: Error): void {
    this.broken ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
    for (const waiter of this.lines.splice(0)) waiter.reject(error);
  }
}

function nulList(items: readonly string[]): Buffer {
  return Buffer.from(items.map((s) => `${s}\0`).join(''));
}

function timedOut(started: number): ExecResult {
  return {
    exitCode: -1,
    output: Buffer.alloc(0),
    stderr: '',
    outputBytes: 0,
    omittedBytes: 0,
    timedOut: true,
    durationMs: Date.now() - started,
  };
}

/** The archive the engine's copy gets for the same files (see DockerSandbox.putFiles). */
export async function tarOf(files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>): Promise<Buffer> {
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
  return Buffer.concat(chunks);
}
