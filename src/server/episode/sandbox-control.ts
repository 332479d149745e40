import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { awaitJournaledCommand, type JournaledCommand } from '../../sandbox/command-journal.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { ShellSession, type BashResult, type BashRunOptions } from '../../sandbox/shell-session.js';

/**
 * The episode's container and the one shell in it: runs the episode's commands, starts a new shell
 * after a restart, and lets both go exactly once (dispose removes the container, release leaves it
 * for the next start). A failed removal is not thrown: it is kept for the summary and the registry
 * retries it; the container's expiry label and its self-ending PID 1 bound its life meanwhile.
 */
export class SandboxControl {
  private disposed = false;
  /** The last failure to remove the container, until a retry succeeds. */
  private removalError: string | undefined;
  /** Aborted when the sandbox is let go: stops waiting on a command a restart found still running. */
  private readonly aborter = new AbortController();
  /** The running command's Ctrl-C (Interrupt), while one runs. */
  private interrupter: AbortController | undefined;

  constructor(
    readonly sandbox: Sandbox,
    /**
     * Absent for an episode a restarted server restored after its end (nothing left to run), or
     * until the command the crash cut is accounted for (its successor starts in its last directory).
     */
    private shell: ShellSession | undefined,
    private readonly logger: Logger,
    private readonly episodeId: string,
  ) {}

  get id(): string {
    return this.sandbox.id;
  }

  /** The shell and container were let go (disposed or left): nothing more runs in them. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  get removalFailure(): string | undefined {
    return this.removalError;
  }

  async run(command: string, options: BashRunOptions): Promise<BashResult> {
    if (!this.shell) throw new Error('the episode has no shell');
    const interrupter = new AbortController();
    this.interrupter = interrupter;
    try {
      const result = await this.shell.run(command, { ...options, interrupt: interrupter.signal });
      const carried = this.carriedNote;
      this.carriedNote = undefined;
      return carried && !result.shellRestarted ? { ...result, shellRestarted: carried } : result;
    } finally {
      if (this.interrupter === interrupter) this.interrupter = undefined;
    }
  }

  /** What the shell said of itself with a command run aside, owed to the agent's next command. */
  private carriedNote: string | undefined;

  /**
   * Runs a command of the server's own between the agent's (a fork reading the shell's exports):
   * a note the shell gives with it (it was replaced since the last step) goes with the agent's
   * next command instead, so the agent still learns its variables were reset.
   */
  async runAside(command: string, options: BashRunOptions): Promise<BashResult> {
    const result = await this.run(command, options);
    if (result.shellRestarted) this.carriedNote = result.shellRestarted;
    return result;
  }

  /** Stops the running command as a terminal's Ctrl-C would; false when none runs. */
  interrupt(): boolean {
    if (!this.interrupter || this.interrupter.signal.aborted) return false;
    this.interrupter.abort();
    return true;
  }

  /** A new shell in the container (after a restart), starting in `cwd` if it still exists. */
  async resumeShell(workdir: string, cwd: string, why: string): Promise<void> {
    this.shell = await ShellSession.resume(this.sandbox, workdir, cwd, why);
  }

  /** How a command a restart cut ended, per the container's journal; gives up once the sandbox is let go. */
  awaitJournal(key: string, sentAtMs: number, deadline: number): Promise<JournaledCommand> {
    return awaitJournaledCommand(this.sandbox, key, sentAtMs, deadline, this.aborter.signal);
  }

  /** Idempotent: closes the shell and removes the container. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.aborter.abort();
    await this.shell?.close();
    await this.retryRemoval();
  }

  /** Lets the shell go and keeps the container (detach); false when it was let go already. */
  async release(): Promise<boolean> {
    if (this.disposed) return false;
    this.disposed = true;
    this.aborter.abort();
    await this.shell?.close();
    return true;
  }

  /** Removes the container; true once it is gone. A failure is kept for the summary and retried by the registry. */
  async retryRemoval(): Promise<boolean> {
    try {
      await this.sandbox.remove();
      this.removalError = undefined;
      return true;
    } catch (error) {
      this.removalError = messageOf(error);
      this.logger.warn({ err: error, episode: this.episodeId }, 'cannot remove the episode container yet; retrying');
      return false;
    }
  }
}
