import { randomBytes } from 'node:crypto';
import { InfraError } from '../common/errors.js';
import { CappedOutput } from './output-buffer.js';
import { MarkerScanner } from './marker-scanner.js';
import { killShell, killShellCommand } from './kill-command.js';
import { AGENT_SHELL_SCRIPT, AGENT_SHELL_SETUP } from './shell-scripts.js';
import type { AttachedProcess, Sandbox } from './sandbox.js';

/** A program run once inside the shell before it reports ready; args must hold no spaces. */
export interface ShellInit {
  readonly script: string;
  readonly args: readonly string[];
}

export interface BashRunOptions {
  readonly timeoutMs: number;
  readonly outputLimitBytes: number;
  /**
   * Names the command in the container's command journal (letters, digits, `_.-`), so a server
   * restarted while it runs can learn how it ended (see command-journal.ts); none when absent.
   */
  readonly journalKey?: string;
  /** Awaited just before the command is written to the shell (after any new shell is started). */
  readonly beforeSend?: () => Promise<void>;
  /** Ctrl-C: stops the command as its timeout would (every process it started), without being one. */
  readonly interrupt?: AbortSignal;
}

export interface BashResult {
  readonly output: string;
  readonly exitCode: number;
  readonly timedOut: boolean;
  /** Stopped by `interrupt` (exit code 130, as a shell reports SIGINT). */
  readonly interrupted?: boolean;
  readonly outputBytes: number;
  readonly omittedBytes: number;
  readonly durationMs: number;
  /** Set when the shell had to be replaced (it exited, or would not come back after a timeout). */
  readonly shellRestarted?: string;
  readonly cwd: string;
}

const READY_TIMEOUT_MS = 30_000;
/** How long a killed command gets to let the shell print its end marker. */
const AFTER_KILL_GRACE_MS = 3_000;
const SHELL_ENV: Readonly<Record<string, string>> = Object.freeze({
  HOME: '/root',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  LANG: 'C.UTF-8',
  PYTHONUNBUFFERED: '1',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_PROGRESS_BAR: 'off',
});

interface Running {
  /** Until the shell announces the command's start; then undefined. */
  start: MarkerScanner | undefined;
  /** When the server sent the command (epoch ms), for the timeout kill: its own clock, not the shell's word. */
  sentAt: number;
  readonly scanner: MarkerScanner;
  readonly sink: CappedOutput;
  readonly done: (outcome: { exitCode: number; cwd: string } | { ended: true }) => void;
}

/**
 * One long-lived bash inside the sandbox, driven over the attached exec's stdin. A command costs a
 * write and a read on an open stream instead of a `docker exec` round trip.
 */
export class ShellSession {
  private process!: AttachedProcess;
  private shellPid = 0;
  private cwd: string;
  private running: Running | undefined;
  private ended = false;
  /** Closed by its owner: never replaced by a new shell. */
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly sandbox: Sandbox,
    /** The task's working directory: where a new shell starts when the last cwd is gone. */
    private readonly home: string,
  ) {
    this.cwd = home;
  }

  /**
   * Starts the shell. `init` runs once inside it before it reports ready (no extra exec); its
   * merged output and exit code come back in `initResult`.
   */
  static async start(sandbox: Sandbox, workdir: string, init?: ShellInit): Promise<ShellSession> {
    const session = new ShellSession(sandbox, workdir);
    session.initResult = await session.spawn(init);
    return session;
  }

  initResult: { output: string; exitCode: number } | undefined;

  /**
   * A new shell in a sandbox whose earlier shell is gone with the server that drove it (a restart
   * re-adopting the container): it starts in `cwd`, and the next command's result says the shell
   * was replaced, since variables and functions the agent set are not carried over.
   */
  static async resume(sandbox: Sandbox, workdir: string, cwd: string, why: string): Promise<ShellSession> {
    const session = new ShellSession(sandbox, workdir);
    session.cwd = cwd;
    await session.spawn();
    session.pendingNote = `${why}; a new shell was started in ${session.cwd} (exported variables and functions were reset)`;
    return session;
  }

  /** Told with the next command's result (a shell replaced between commands). */
  private pendingNote: string | undefined;

  /** Runs one command; calls are serialised. */
  run(command: string, options: BashRunOptions): Promise<BashResult> {
    const result = this.queue.then(() => this.runNow(command, options));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Lets the shell go. A command it is running goes on in the container (as when the server dies)
   * and its call fails; no new shell is started for it.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.ended = true;
    this.process?.stream.destroy();
  }

  private async spawn(init?: ShellInit): Promise<{ output: string; exitCode: number } | undefined> {
    const initEnv: Record<string, string> = init ? { SWE_ENV_INIT: init.script, SWE_ENV_INIT_ARGS: init.args.join(' ') } : {};
    // The exec starts in / (which always exists): the shell itself goes to the last cwd, or the
    // task's workdir when the agent deleted it, and says where it landed.
    const proc = await this.sandbox.attach(['bash', '--noprofile', '--norc', '-c', AGENT_SHELL_SCRIPT], {
      workdir: '/',
      env: { ...SHELL_ENV, SWE_ENV_SHELL_SETUP: AGENT_SHELL_SETUP, SWE_ENV_WORKDIR: this.cwd, SWE_ENV_HOME: this.home, ...initEnv },
    });
    this.process = proc;
    this.ended = false;
    const ready = await waitForReady(proc);
    this.shellPid = ready.pid;
    if (ready.cwd) this.cwd = ready.cwd;
    proc.output.on('data', (chunk: Buffer) => this.onData(chunk));
    proc.output.on('end', () => this.onEnd(proc));
    proc.output.on('error', () => this.onEnd(proc));
    if (!init) return undefined;
    const at = ready.init.lastIndexOf('\nexit=');
    return at < 0 ? { output: ready.init, exitCode: -1 } : { output: ready.init.slice(0, at), exitCode: Number(ready.init.slice(at + 6)) };
  }

  private onData(chunk: Buffer): void {
    const running = this.running;
    if (!running) return; // output of background jobs between commands is dropped
    let data = chunk;
    if (running.start) {
      // Whatever precedes the start announcement is background output from before the command.
      const announced = running.start.feed(data).hit;
      if (!announced) return;
      running.start = undefined;
      data = announced.after;
      if (data.length === 0) return;
    }
    const { output, hit } = running.scanner.feed(data);
    if (output.length > 0) running.sink.push(output);
    if (hit) {
      if (hit.before.length > 0) running.sink.push(hit.before);
      const [code, ...cwdParts] = hit.payload.split(':');
      running.done({ exitCode: Number(code), cwd: cwdParts.join(':') });
    }
  }

  private onEnd(proc: AttachedProcess): void {
    if (proc !== this.process) return;
    this.ended = true;
    this.running?.done({ ended: true });
  }

  private async runNow(command: string, options: BashRunOptions): Promise<BashResult> {
    const started = Date.now();
    let note = this.pendingNote;
    this.pendingNote = undefined;
    if (this.ended) {
      await this.respawn();
      note = `the previous shell had ended; a new shell was started in ${this.cwd}`;
    }
    // Two nonces: the start one is spent before the command runs; the end one stays in the pipe until
    // the command has ended, so the command cannot read it from a variable and forge its own end.
    const nonce = randomBytes(9).toString('base64url');
    const endNonce = randomBytes(9).toString('base64url');
    const sink = new CappedOutput(options.outputLimitBytes);
    const scanner = new MarkerScanner(`SWE_ENV_END:${endNonce}:`);
    let resolveOutcome!: Running['done'];
    const outcome = new Promise<Parameters<Running['done']>[0]>((resolve) => (resolveOutcome = resolve));
    await options.beforeSend?.();
    const running: Running = {
      start: new MarkerScanner(`SWE_ENV_START:${nonce}:`),
      sentAt: Date.now(),
      scanner,
      sink,
      done: resolveOutcome,
    };
    this.running = running;
    this.process.stream.write(Buffer.from(`${nonce}\0${options.journalKey ?? ''}\0${command}\0${endNonce}\0`, 'utf8'));

    let timedOut = false;
    let interrupted = false;
    const race = await raceTimeout(outcome, options.timeoutMs, options.interrupt);
    let first: Awaited<typeof outcome> | 'timeout';
    if (race === 'timeout' || race === 'interrupted') {
      timedOut = race === 'timeout';
      interrupted = race === 'interrupted';
      await killShellCommand(this.sandbox, this.shellPid, running.sentAt);
      first = await raceTimeout(outcome, AFTER_KILL_GRACE_MS);
    } else {
      first = race;
    }
    this.running = undefined;

    let exitCode: number;
    if (first === 'timeout') {
      // The shell itself is stuck (a loop in a shell builtin, a redirected stdout...): replace it.
      // Whatever it started after the first kill (it went on with the command) would outlive it:
      // the same sweep again, now that no shell is left to start more.
      await killShell(this.sandbox, this.shellPid);
      await killShellCommand(this.sandbox, this.shellPid, running.sentAt);
      await this.respawn();
      exitCode = 137;
      note = `the shell did not come back after the timeout and was replaced; a new shell was started in ${this.cwd} (exported variables and functions were reset)`;
    } else if ('ended' in first) {
      sink.push(scanner.flush());
      exitCode = (await this.process.exitCode().catch(() => null)) ?? -1;
      await this.respawn();
      note = `the shell exited (exit code ${exitCode}); a new shell was started in ${this.cwd} (exported variables and functions were reset)`;
    } else {
      exitCode = first.exitCode;
      if (first.cwd) this.cwd = first.cwd;
    }
    if (timedOut && exitCode === 0) exitCode = 137;
    // The killed command's own status is the kill's; a terminal's Ctrl-C reads as 130.
    if (interrupted) exitCode = 130;
    return {
      output: sink.render(),
      exitCode,
      timedOut,
      ...(interrupted ? { interrupted } : {}),
      outputBytes: sink.totalBytes,
      omittedBytes: sink.omittedBytes,
      durationMs: Date.now() - started,
      cwd: this.cwd,
      ...(note ? { shellRestarted: note } : {}),
    };
  }

  private async respawn(): Promise<void> {
    this.process.stream.destroy();
    if (this.closed) throw new InfraError('the shell was closed');
    if (!(await this.sandbox.isRunning())) {
      throw new InfraError('the sandbox container is no longer running');
    }
    await this.spawn();
  }
}

/** The promise's value, or 'timeout' after ms, or 'interrupted' once `interrupt` aborts. */
function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'>;
function raceTimeout<T>(promise: Promise<T>, ms: number, interrupt: AbortSignal | undefined): Promise<T | 'timeout' | 'interrupted'>;
function raceTimeout<T>(promise: Promise<T>, ms: number, interrupt?: AbortSignal): Promise<T | 'timeout' | 'interrupted'> {
  return new Promise((resolve, reject) => {
    const onInterrupt = (): void => {
      clearTimeout(timer);
      resolve('interrupted');
    };
    const timer = setTimeout(() => {
      interrupt?.removeEventListener('abort', onInterrupt);
      resolve('timeout');
    }, ms);
    if (interrupt?.aborted) onInterrupt();
    else interrupt?.addEventListener('abort', onInterrupt, { once: true });
    promise.then(
      (value) => {
        clearTimeout(timer);
        interrupt?.removeEventListener('abort', onInterrupt);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        interrupt?.removeEventListener('abort', onInterrupt);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Reads until the shell announces itself; returns its pid and its start-up program's output. */
function waitForReady(proc: AttachedProcess): Promise<{ pid: number; cwd: string; init: string }> {
  const scanner = new MarkerScanner('SWE_ENV_READY:');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new InfraError('the sandbox shell did not start in time')), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      const { hit } = scanner.feed(chunk);
      if (hit) {
        cleanup();
        // <pid>:<cwd>\x1d<init output>
        const colon = hit.payload.indexOf(':');
        const rest = colon < 0 ? '' : hit.payload.slice(colon + 1);
        const separator = rest.indexOf('\x1d');
        resolve({
          pid: Number(colon < 0 ? hit.payload : hit.payload.slice(0, colon)),
          cwd: separator < 0 ? '' : rest.slice(0, separator),
          init: separator < 0 ? rest : rest.slice(separator + 1),
        });
      }
    };
    const onEnd = (): void => fail(new InfraError('the sandbox shell exited before it was ready'));
    const fail = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      proc.output.off('data', onData);
      proc.output.off('end', onEnd);
    };
    proc.output.on('data', onData);
    proc.output.on('end', onEnd);
  });
}
