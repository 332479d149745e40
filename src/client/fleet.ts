import { createHash, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import * as grpc from '@grpc/grpc-js';
import type { ForkResponse__Output } from '../generated/swe_env/v1/ForkResponse.js';
import type { CloseResponse__Output } from '../generated/swe_env/v1/CloseResponse.js';
import type { PrefetchResponse__Output } from '../generated/swe_env/v1/PrefetchResponse.js';
import type { ResetRequest } from '../generated/swe_env/v1/ResetRequest.js';
import type { ResetResponse__Output } from '../generated/swe_env/v1/ResetResponse.js';
import type { ServerInfo__Output } from '../generated/swe_env/v1/ServerInfo.js';
import type { StepResponse__Output } from '../generated/swe_env/v1/StepResponse.js';
import { SweEnvClient, type CallOptions, type ClientSecurity } from './client.js';

/**
 * One logical environment over many swe-env servers, with no scheduler of its own: the client
 * places each episode. Every episode of a GRPO group (`group_id`) goes to one server (its image is
 * warm there); a new group goes to the server its task id hashes to among those holding the task's
 * image, unless that server is over its share of the load (bounded-load rendezvous hashing), then
 * to the next in its order. RESOURCE_EXHAUSTED or an unreachable server moves a Reset on to the
 * next server (same episode id, so the Reset stays idempotent). A server that stops answering is
 * taken out: its episodes end as INFRA_ERROR (masked by the trainer, never a 0) and new Resets go
 * elsewhere; it comes back when it answers again.
 */
export interface FleetOptions {
  /** host:port of each server. */
  readonly addresses?: readonly string[];
  /** host:port whose name resolves to every server (a headless Service, a DNS round robin). */
  readonly dnsName?: string;
  readonly security?: ClientSecurity;
  /** How long a server's capacity report is trusted before it is asked again. */
  readonly infoTtlMs?: number;
  /** A server takes new groups up to this factor over the fleet's mean load. */
  readonly loadFactor?: number;
  /**
   * How long a step waits for its server to answer again (a restart with the same server id and
   * state directory goes on with its episodes) before the episode counts as lost. Default 30 s.
   */
  readonly restartWaitMs?: number;
}

interface Member {
  readonly address: string;
  readonly client: SweEnvClient;
  info?: ServerInfo__Output;
  infoAt: number;
  down: boolean;
  /** Episodes placed here and not closed (counted locally between capacity reports). */
  placed: number;
}

/**
 * gRPC codes meaning "this server cannot take it now": try another one. A Reset that ran out its
 * deadline waiting for room moves on too (each attempt has a deadline of its own).
 */
const MOVE_ON = new Set([grpc.status.RESOURCE_EXHAUSTED, grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);

export class FleetError extends Error {
  constructor(
    message: string,
    readonly code: grpc.status,
  ) {
    super(message);
  }
}

function codeOf(error: unknown): grpc.status | undefined {
  return (error as { code?: grpc.status } | undefined)?.code;
}

/** Rendezvous (highest random weight) score of a key on a server. */
function score(key: string, address: string): bigint {
  return createHash('sha256').update(`${key}\0${address}`).digest().readBigUInt64BE(0);
}

export class FleetClient {
  private readonly members = new Map<string, Member>();
  private readonly groups = new Map<string, string>();
  private readonly episodes = new Map<string, string>();
  private readonly taskImages = new Map<string, string>();
  private readonly infoTtlMs: number;
  private readonly loadFactor: number;
  private readonly restartWaitMs: number;

  private constructor(private readonly options: FleetOptions) {
    this.infoTtlMs = options.infoTtlMs ?? 2000;
    this.loadFactor = options.loadFactor ?? 1.25;
    this.restartWaitMs = options.restartWaitMs ?? 30_000;
  }

  static async connect(options: FleetOptions): Promise<FleetClient> {
    const fleet = new FleetClient(options);
    const addresses = [...(options.addresses ?? []), ...(options.dnsName ? await resolveAll(options.dnsName) : [])];
    if (addresses.length === 0) throw new Error('a fleet needs at least one server address (addresses or dnsName)');
    for (const address of new Set(addresses)) fleet.add(address);
    await fleet.refresh(true);
    return fleet;
  }

  private add(address: string): void {
    if (this.members.has(address)) return;
    this.members.set(address, {
      address,
      client: new SweEnvClient(address, {}, this.options.security ?? {}),
      infoAt: 0,
      down: false,
      placed: 0,
    });
  }

  /** The servers and what each last reported. */
  get servers(): ReadonlyArray<{ address: string; down: boolean; info?: ServerInfo__Output; placed: number }> {
    return [...this.members.values()].map(({ address, down, info, placed }) => ({ address, down, placed, ...(info ? { info } : {}) }));
  }

  /** Where an episode lives. */
  serverOf(episodeId: string): string | undefined {
    return this.episodes.get(episodeId);
  }

  /** Asks every server whose report is stale (or all) what it can take; a silent one is taken out. */
  async refresh(all = false): Promise<void> {
    const now = Date.now();
    await Promise.all(
      [...this.members.values()]
        .filter((m) => all || now - m.infoAt > this.infoTtlMs)
        .map(async (m) => {
          try {
            m.info = await m.client.getServerInfo({ timeoutS: 3 });
            m.infoAt = Date.now();
            m.placed = 0; // the report counts them now
            m.down = false;
          } catch {
            m.down = true;
            m.infoAt = Date.now();
          }
        }),
    );
  }

  private load(m: Member): number {
    return (m.info?.liveEpisodes ?? 0) + m.placed;
  }

  private async imageOf(taskId: string): Promise<string | undefined> {
    const known = this.taskImages.get(taskId);
    if (known) return known;
    for (const m of this.members.values()) {
      if (m.down) continue;
      try {
        const task = await m.client.getTask(taskId, { timeoutS: 10 });
        this.taskImages.set(taskId, task.image);
        return task.image;
      } catch (error) {
        if (codeOf(error) === grpc.status.NOT_FOUND) throw error;
      }
    }
    return undefined;
  }

  /** The servers to try for a Reset, best first. */
  private async candidates(request: ResetRequest, key: string): Promise<Member[]> {
    await this.refresh();
    const alive = [...this.members.values()].filter((m) => !m.down && !m.info?.draining);
    const pinned = request.groupId ? this.groups.get(request.groupId) : undefined;
    const image = await this.imageOf(request.taskId ?? '');
    const holds = (m: Member) => !image || (m.info?.images ?? []).includes(image);
    const total = alive.reduce((sum, m) => sum + this.load(m), 0);
    const bound = Math.ceil((this.loadFactor * (total + 1)) / Math.max(1, alive.length));
    const open = (m: Member) => this.load(m) < (m.info?.maxEpisodes ?? Infinity);
    const room = (m: Member) => open(m) && this.load(m) < bound;
    const ranked = [...alive].sort((a, b) => (score(key, b.address) > score(key, a.address) ? 1 : -1));
    const byLoad = [...alive].sort((a, b) => this.load(a) - this.load(b));
    const ordered = [
      // The group's server while it has room (a full one would hold the Reset until its deadline).
      ...ranked.filter((m) => m.address === pinned && open(m)),
      ...ranked.filter((m) => holds(m) && room(m)),
      ...byLoad.filter(open),
      // Every server full: wait on the least loaded, as a single server would.
      ...byLoad,
    ];
    return [...new Set(ordered)];
  }

  /**
   * Starts an episode on the fleet. The episode id is chosen here when the caller gives none, so a
   * retry of this Reset (on this server or the next) stays the same episode.
   */
  async reset(request: ResetRequest, options?: CallOptions): Promise<ResetResponse__Output & { server: string }> {
    const episodeId = request.episodeId || `fleet-${randomUUID()}`;
    // Keyed by task: every group of a task prefers one server, whose image cache then holds it.
    const key = request.taskId || request.groupId || episodeId;
    const tried: string[] = [];
    for (const m of await this.candidates(request, key)) {
      try {
        const response = await m.client.reset({ ...request, episodeId }, options);
        m.placed += 1;
        this.episodes.set(response.episodeId, m.address);
        if (request.groupId) this.groups.set(request.groupId, m.address);
        return { ...response, server: m.address };
      } catch (error) {
        const code = codeOf(error);
        if (code === undefined || !MOVE_ON.has(code)) throw error;
        if (code === grpc.status.UNAVAILABLE) m.down = true;
        tried.push(`${m.address}: ${(error as Error).message}`);
      }
    }
    throw new FleetError(`no server could start the episode (${tried.join('; ') || 'none is up'})`, grpc.status.RESOURCE_EXHAUSTED);
  }

  /**
   * Starts the pulls of these tasks' images, each on the server its groups will be placed on first
   * (the top of the task's rendezvous order among the servers up): one Prefetch per server.
   */
  async prefetch(taskIds: readonly string[], options?: CallOptions): Promise<Array<PrefetchResponse__Output & { server: string }>> {
    await this.refresh();
    const alive = [...this.members.values()].filter((m) => !m.down && !m.info?.draining);
    const byServer = new Map<Member, string[]>();
    for (const taskId of taskIds) {
      const home = alive.reduce<Member | undefined>(
        (best, m) => (!best || score(taskId, m.address) > score(taskId, best.address) ? m : best),
        undefined,
      );
      if (!home) throw new FleetError('no server is up to prefetch on', grpc.status.UNAVAILABLE);
      byServer.set(home, [...(byServer.get(home) ?? []), taskId]);
    }
    return Promise.all([...byServer].map(async ([m, ids]) => ({ ...(await m.client.prefetch(ids, options)), server: m.address })));
  }

  private member(episodeId: string): Member {
    const address = this.episodes.get(episodeId);
    const m = address ? this.members.get(address) : undefined;
    if (!m) throw new FleetError(`episode ${episodeId} was not started through this fleet client`, grpc.status.NOT_FOUND);
    return m;
  }

  /** Whether a server that failed a call is really gone (asked once more, briefly). */
  private async gone(m: Member): Promise<boolean> {
    if (m.down) return true;
    try {
      m.info = await m.client.getServerInfo({ timeoutS: 3 });
      m.infoAt = Date.now();
      return false;
    } catch {
      m.down = true;
      return true;
    }
  }

  /** Whether a server that stopped answering answers again within `waitMs` (it restarted). */
  private async backWithin(m: Member, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        m.info = await m.client.getServerInfo({ timeoutS: Math.max(0.5, Math.min(3, (deadline - Date.now()) / 1000)) });
        m.infoAt = Date.now();
        m.down = false;
        return true;
      } catch {
        if (Date.now() >= deadline) {
          m.down = true;
          return false;
        }
        await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(50, deadline - Date.now()))));
      }
    }
  }

  /** The step response an episode on a lost server gets: the environment's failure, masked. */
  private lost(episodeId: string, m: Member, stepIndex: number, callId: string): StepResponse__Output {
    this.episodes.delete(episodeId);
    return {
      observation: `[swe-env fleet] the server holding this episode (${m.address}) stopped answering; the episode is lost.`,
      reward: 0,
      terminated: false,
      truncated: true,
      status: 'STEP_STATUS_INFRA_ERROR',
      stepIndex,
      callId,
      exitCode: -1,
      info: {
        fields: {
          end_reason: { kind: 'stringValue', stringValue: 'infra_error' },
          server: { kind: 'stringValue', stringValue: m.address },
        },
      },
      report: null,
    };
  }

  async step(
    episodeId: string,
    stepIndex: number,
    action: { name: string; arguments?: Record<string, unknown>; argumentsJson?: string; callId?: string },
    options?: CallOptions,
  ): Promise<StepResponse__Output> {
    const m = this.member(episodeId);
    if (m.down && !(await this.backWithin(m, this.restartWaitMs))) return this.lost(episodeId, m, stepIndex, action.callId ?? '');
    for (let comebacks = 0; ; comebacks++) {
      try {
        return await m.client.step(episodeId, stepIndex, action, options);
      } catch (error) {
        // Unreachable: a server restarting with its episode records answers the same step index
        // (its recorded outcome), so wait for it a while. Otherwise, or past the wait, the server's
        // own answer decides: gone, the episode is lost; there, the caller retries the same step
        // index (idempotent) and gets the server's outcome.
        if (codeOf(error) === grpc.status.UNAVAILABLE && comebacks < 3 && (await this.backWithin(m, this.restartWaitMs))) continue;
        if (codeOf(error) !== grpc.status.NOT_FOUND && (await this.gone(m))) return this.lost(episodeId, m, stepIndex, action.callId ?? '');
        throw error;
      }
    }
  }

  bash(episodeId: string, stepIndex: number, command: string, options?: CallOptions): Promise<StepResponse__Output> {
    return this.step(episodeId, stepIndex, { name: 'bash', arguments: { command } }, options);
  }

  submit(episodeId: string, stepIndex: number, options?: CallOptions): Promise<StepResponse__Output> {
    return this.step(episodeId, stepIndex, { name: 'submit_solution', arguments: {} }, { timeoutS: 3600, ...options });
  }

  /** Forks an episode on its own server (its state lives there): the children stay on that server. */
  async fork(
    episodeId: string,
    count: number,
    fork: { freshBudgets?: boolean; childEpisodeIds?: string[] } = {},
    options?: CallOptions,
  ): Promise<ForkResponse__Output> {
    const m = this.member(episodeId);
    const response = await m.client.fork(episodeId, count, fork, options);
    for (const child of response.episodeIds) this.episodes.set(child, m.address);
    m.placed += response.episodeIds.length;
    return response;
  }

  async close(episodeId: string, options?: CallOptions): Promise<CloseResponse__Output | undefined> {
    const address = this.episodes.get(episodeId);
    const m = address ? this.members.get(address) : undefined;
    if (!m || m.down) {
      this.episodes.delete(episodeId);
      return undefined; // lost with its server (or already reported lost): nothing to close
    }
    const closed = await m.client.close(episodeId, options);
    this.episodes.delete(episodeId);
    m.placed = Math.max(0, m.placed - 1);
    return closed;
  }

  dispose(): void {
    for (const m of this.members.values()) m.client.dispose();
  }
}

/** Every address a host:port name resolves to. */
async function resolveAll(hostPort: string): Promise<string[]> {
  const at = hostPort.lastIndexOf(':');
  const host = hostPort.slice(0, at);
  const port = hostPort.slice(at + 1);
  const records = await lookup(host, { all: true });
  return records.map((r) => (r.family === 6 ? `[${r.address}]:${port}` : `${r.address}:${port}`));
}
