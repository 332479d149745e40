import type Docker from 'dockerode';
import { PassThrough, type Duplex } from 'node:stream';
import type { ContainerEvents } from './container-events.js';
import type { DiskWatchdog } from './disk-watchdog.js';
import { InfraError } from '../common/errors.js';
import { CappedOutput } from './output-buffer.js';
import { tarOf } from './exec-channel.js';
import {
  capturingWritable,
  demux,
  envList,
  execEndOf,
  removeContainer,
  startFailedForNow,
  statusCodeOf,
  waitForEnd,
  type ExecEnd,
} from './docker-exec.js';
import { runBeside, type HelperShare } from './helper-container.js';
import { setOfflineRoute } from './offline-network/offline-route.js';
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
  TopProcess,
} from './sandbox.js';
import { topProcesses } from './engines/top-rows.js';
import type { EngineDialect } from './engines/engine-dialect.js';

const DEFAULT_EXEC_OUTPUT_LIMIT = 16 * 1024 * 1024;
/** Starts of an exec's process the runtime failed for the moment (see startFailedForNow). */
const EXEC_START_ATTEMPTS = 3;

/** One container of the Docker engine as a Sandbox: exec, attach, files in and out, its fate. */
export class DockerSandbox implements Sandbox {
  private removed = false;
  /** Why the engine was told to stop this container (terminate), for its fate. */
  private terminatedFor: string | undefined;

  constructor(
    private readonly container: Docker.Container,
    readonly spec: SandboxSpec,
    private readonly events: ContainerEvents,
    private readonly disk: DiskWatchdog,
    /** The engine, server id and OCI runtime its helpers are made with. */
    private readonly owner: {
      readonly docker: Docker;
      readonly serverId: string;
      readonly ociRuntime: string | undefined;
      readonly process?: string | undefined;
      /** How the engine lists the container's processes without running anything of the container. */
      readonly dialect: EngineDialect;
    },
  ) {}

  async fate(waitMs?: number): Promise<SandboxFate | undefined> {
    const diskOverrun = this.disk.overrun(this.container.id);
    if (this.terminatedFor !== undefined)
      return { ownOutOfMemory: false, exitCode: 137, terminated: this.terminatedFor, ...(diskOverrun ? { diskOverrun } : {}) };
    const fate = await this.events.fate(this.container.id, waitMs);
    if (!diskOverrun) return fate;
    return { ownOutOfMemory: false, exitCode: fate?.exitCode ?? 137, diskOverrun };
  }

  runBeside(argv: readonly string[], options: BesideOptions, share: HelperShare = 'pid'): Promise<BesideResult> {
    return runBeside(
      this.owner.docker,
      {
        id: this.container.id,
        spec: this.spec,
        serverId: this.owner.serverId,
        ociRuntime: this.owner.ociRuntime,
        owner: this.owner.process,
      },
      argv,
      options,
      share,
    );
  }

  offlineRoute: OfflineRoute | undefined;
  private routing: Promise<void> = Promise.resolve();

  /** Gives an 'offline' sandbox its route into loopback (once, right after its start). */
  async routeOffline(): Promise<void> {
    this.offlineRoute = await setOfflineRoute((argv, options) => this.runBeside(argv, options, 'network'));
  }

  /** Sets the route while the caller goes on (routeInBackground); networkReady() gives its outcome. */
  routeOfflineInBackground(): void {
    const routing = this.routeOffline();
    // Its failure is networkReady()'s to report; a caller that never asks (a grading ended early)
    // must not see it as an unhandled rejection.
    routing.catch(() => undefined);
    this.routing = routing;
  }

  networkReady(): Promise<void> {
    return this.routing;
  }

  async terminate(reason: string): Promise<void> {
    this.terminatedFor ??= reason;
    try {
      await this.container.kill({ signal: 'SIGKILL' });
    } catch (error) {
      const code = statusCodeOf(error);
      // 404: gone already; 409: not running. Either way nothing of it runs.
      if (code === 404 || code === 409) return;
      throw new InfraError(`cannot stop sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  get id(): string {
    return this.container.id;
  }

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    // A process the runtime failed to start for the moment is started again: nothing of it ran.
    for (let attempt = 1; ; attempt++) {
      const { result, end } = await this.execOnce(argv, options, started);
      if (
        !end ||
        !startFailedForNow(end, `${result.output.toString('utf8')}${result.stderr}`) ||
        attempt >= EXEC_START_ATTEMPTS ||
        options.signal?.aborted
      )
        return result;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }

  private async execOnce(argv: readonly string[], options: ExecOptions, started: number): Promise<{ result: ExecResult; end?: ExecEnd }> {
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
      stream = await exec.start({ hijack: true, stdin: hasStdin });
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
    const end = timedOut ? undefined : await execEndOf(exec);
    const result = {
      exitCode: end?.exitCode ?? -1,
      output: sink.bytes(),
      stderr: options.separateStderr ? errSink.render() : '',
      outputBytes: sink.totalBytes,
      omittedBytes: sink.omittedBytes,
      timedOut,
      durationMs: Date.now() - started,
    };
    return end ? { result, end } : { result };
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
      const stream = await exec.start({ hijack: true, stdin: true });
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
    await this.putArchive(await tarOf(files), '/');
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
    // A container that changed nothing gets the JSON `null`, which dockerode hands back as a raw
    // body (a Buffer), not as an array.
    const answer: unknown = await this.container.changes();
    const list = (Array.isArray(answer) ? answer : []) as Array<{ Path: string; Kind: number }>;
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
      const typeBits = ((1 << 31) >>> 0) | (1 << 27) | (1 << 26) | (1 << 25) | (1 << 24) | (1 << 21) | (1 << 19);
      return { size: stat.size, isFile: (mode & typeBits) === 0, isSymlink: (mode & (1 << 27)) !== 0 };
    } catch (error) {
      if (statusCodeOf(error) === 404) return undefined;
      throw new InfraError(`cannot stat ${path} in sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async readArchive(path: string, maxBytes: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.streamArchive(path, maxBytes)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  async *streamArchive(path: string, maxBytes: number): AsyncGenerator<Buffer> {
    const stream = (await this.container.getArchive({ path })) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
        yield chunk;
      }
    } finally {
      // A reader that stopped early (over the bound, or done with what it wanted) ends the engine's read.
      stream.destroy?.();
    }
  }

  async imageId(): Promise<string | undefined> {
    const info = await this.container.inspect().catch(() => undefined);
    return info?.Image || undefined;
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

  async pause(): Promise<void> {
    try {
      await this.container.pause();
    } catch (error) {
      // 409 "already paused" is what was asked; anything else (not running, gone) is not.
      if (statusCodeOf(error) === 409 && /already paused/i.test(String(error))) return;
      throw new InfraError(`cannot pause sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async unpause(): Promise<void> {
    try {
      await this.container.unpause();
    } catch (error) {
      const code = statusCodeOf(error);
      if (code === 404 || code === 409) return; // gone, or not paused
      throw new InfraError(`cannot unpause sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async processes(): Promise<TopProcess[]> {
    try {
      const initPid = (await this.container.inspect()).State.Pid;
      const psArgs = await this.owner.dialect.processListArgs();
      const top = (await this.container.top({ ps_args: psArgs })) as { Titles?: string[]; Processes?: string[][] };
      return topProcesses(top.Processes ?? [], initPid, top.Titles ?? []);
    } catch (error) {
      throw new InfraError(`cannot list the processes of sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async killAllButInit(): Promise<void> {
    try {
      // The keeper (PID 1, a shell already in memory) answers SIGUSR2 with its builtin `kill -9 -1`:
      // no file of the container is run, whatever the agent's code replaced on disk.
      await this.container.kill({ signal: 'SIGUSR2' });
    } catch (error) {
      throw new InfraError(`cannot signal sandbox ${this.id.slice(0, 12)}: ${String(error)}`, { cause: error });
    }
  }

  async remove(): Promise<void> {
    if (this.removed) return;
    await removeContainer(this.container);
    this.removed = true;
    this.disk.forget(this.container.id);
  }
}
