import type {
  AttachedProcess,
  BesideOptions,
  BesideResult,
  ExecOptions,
  ExecResult,
  OfflineRoute,
  Sandbox,
  SandboxFate,
  SandboxSpec,
} from './sandbox.js';
import { ExecChannel } from './exec-channel.js';

/**
 * Decides, per command, whether it may go through the channel: only commands that run nothing a
 * party other than the channel's opener controls. The first command refused closes the channel for
 * good (its process gone) before that command starts.
 */
export type ChannelGate = (argv: readonly string[], options: ExecOptions) => boolean;

/**
 * A sandbox whose commands go through an exec channel (exec-channel.ts) until the first command the
 * gate refuses; from then on, and for everything else, it is the sandbox itself. Files written
 * while the channel is open go through it too.
 */
export class ChannelledSandbox implements Sandbox {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly inner: Sandbox,
    private readonly channel: ExecChannel | undefined,
    private readonly gate: ChannelGate,
  ) {}

  /** The channel's folder is `dir` (inside the container, outside anything the gate lets run). */
  static async open(inner: Sandbox, dir: string, gate: ChannelGate): Promise<ChannelledSandbox> {
    const channel = await ExecChannel.open(inner, dir);
    return new ChannelledSandbox(inner, channel, gate);
  }

  /** Whether commands still go through the channel. */
  get channelled(): boolean {
    return this.closing === undefined && this.channel?.open === true;
  }

  get id(): string {
    return this.inner.id;
  }

  get spec(): SandboxSpec {
    return this.inner.spec;
  }

  get offlineRoute(): OfflineRoute | undefined {
    return this.inner.offlineRoute;
  }

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (this.channelled && this.gate(argv, options)) return this.channel!.exec(argv, options.workdir ?? this.inner.spec.workdir, options);
    await this.closeChannel();
    return this.inner.exec(argv, options);
  }

  async putFiles(files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>): Promise<void> {
    if (this.channelled && this.channel!.hasTar) return this.channel!.putFiles(files);
    return this.inner.putFiles(files);
  }

  /**
   * Closes the channel (idempotent): once this resolves its process is gone, and the container's
   * network is as its spec asks (a route set in the background is in place before anything the gate
   * refuses runs).
   */
  closeChannel(): Promise<void> {
    this.closing ??= Promise.all([this.channel?.close(), this.inner.networkReady()]).then(() => undefined);
    return this.closing;
  }

  networkReady(): Promise<void> {
    return this.inner.networkReady();
  }

  imageId(): Promise<string | undefined> {
    return this.inner.imageId();
  }

  attach(argv: readonly string[], options?: { workdir?: string; env?: Readonly<Record<string, string>> }): Promise<AttachedProcess> {
    return this.inner.attach(argv, options);
  }

  putArchive(archive: Buffer | NodeJS.ReadableStream, path: string): Promise<void> {
    return this.inner.putArchive(archive, path);
  }

  runBeside(argv: readonly string[], options: BesideOptions): Promise<BesideResult> {
    return this.inner.runBeside(argv, options);
  }

  terminate(reason: string): Promise<void> {
    this.channel?.destroy();
    return this.inner.terminate(reason);
  }

  isRunning(): Promise<boolean> {
    return this.inner.isRunning();
  }

  isPaused(): Promise<boolean> {
    return this.inner.isPaused();
  }

  pause(): Promise<void> {
    return this.inner.pause();
  }

  unpause(): Promise<void> {
    return this.inner.unpause();
  }

  processes(): ReturnType<Sandbox['processes']> {
    return this.inner.processes();
  }

  killAllButInit(): Promise<void> {
    return this.inner.killAllButInit();
  }

  changes(): ReturnType<Sandbox['changes']> {
    return this.inner.changes();
  }

  statPath(path: string): ReturnType<Sandbox['statPath']> {
    return this.inner.statPath(path);
  }

  readArchive(path: string, maxBytes: number): Promise<Buffer> {
    return this.inner.readArchive(path, maxBytes);
  }

  streamArchive(path: string, maxBytes: number): AsyncIterable<Buffer> {
    return this.inner.streamArchive(path, maxBytes);
  }

  fate(waitMs?: number): Promise<SandboxFate | undefined> {
    return this.inner.fate(waitMs);
  }

  remove(): Promise<void> {
    this.channel?.destroy();
    return this.inner.remove();
  }
}
