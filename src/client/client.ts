import * as grpc from '@grpc/grpc-js';
import type { CloseResponse__Output } from '../generated/swe_env/v1/CloseResponse.js';
import type { EvaluateResponse__Output } from '../generated/swe_env/v1/EvaluateResponse.js';
import type { InterruptResponse__Output } from '../generated/swe_env/v1/InterruptResponse.js';
import type { ListTasksRequest } from '../generated/swe_env/v1/ListTasksRequest.js';
import type { ListTasksResponse__Output } from '../generated/swe_env/v1/ListTasksResponse.js';
import type { ResetRequest } from '../generated/swe_env/v1/ResetRequest.js';
import type { PrefetchResponse__Output } from '../generated/swe_env/v1/PrefetchResponse.js';
import type { ServerInfo__Output } from '../generated/swe_env/v1/ServerInfo.js';
import type { PrewarmResponse__Output } from '../generated/swe_env/v1/PrewarmResponse.js';
import type { ResetResponse__Output } from '../generated/swe_env/v1/ResetResponse.js';
import type { StepResponse__Output } from '../generated/swe_env/v1/StepResponse.js';
import type { SweEnvClient as GeneratedClient } from '../generated/swe_env/v1/SweEnv.js';
import type { Task__Output } from '../generated/swe_env/v1/Task.js';
import type { ForkResponse__Output } from '../generated/swe_env/v1/ForkResponse.js';
import type { ReplayRequest } from '../generated/swe_env/v1/ReplayRequest.js';
import type { ReplayResponse__Output } from '../generated/swe_env/v1/ReplayResponse.js';
import { loadProto } from '../common/proto.js';

export interface CallOptions {
  /** Seconds until the call's deadline. */
  readonly timeoutS?: number;
  /** Cancels the call (gRPC CANCELLED) when it aborts. */
  readonly signal?: AbortSignal;
}

type Callback<T> = (error: grpc.ServiceError | null, value?: T) => void;

/** How to reach a server that is not on loopback: its bearer token, and TLS. */
export interface ClientSecurity {
  /** Sent as `authorization: Bearer <token>` on every call. */
  readonly token?: string;
  /** TLS: the CA that signed the server's certificate (PEM). Set `tls` to use the system's roots instead. */
  readonly ca?: Buffer;
  readonly tls?: boolean;
  /** Mutual TLS: this client's certificate and key (PEM). */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** A small promise client for swe_env.v1 (the CLI, the tests and the benchmarks use it). */
export class SweEnvClient {
  readonly raw: GeneratedClient;

  private readonly metadata: grpc.Metadata;

  constructor(address: string, channelOptions: grpc.ChannelOptions = {}, security: ClientSecurity = {}) {
    const { proto } = loadProto();
    const secure = security.tls === true || security.ca !== undefined || security.cert !== undefined;
    const credentials = secure
      ? grpc.credentials.createSsl(security.ca ?? null, security.key ?? null, security.cert ?? null)
      : grpc.credentials.createInsecure();
    this.metadata = new grpc.Metadata();
    if (security.token) this.metadata.set('authorization', `Bearer ${security.token}`);
    this.raw = new proto.swe_env.v1.SweEnv(address, credentials, {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // A restarted server (same address) is found again within about a second: its episodes go on.
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.min_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 2_000,
      ...channelOptions,
    });
  }

  private call<T>(
    invoke: (options: grpc.CallOptions & { metadata: grpc.Metadata }, callback: Callback<T>) => grpc.ClientUnaryCall,
    options: CallOptions = {},
  ): Promise<T> {
    const deadline = new Date(Date.now() + (options.timeoutS ?? 600) * 1000);
    const signal = options.signal;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const call = invoke({ deadline, metadata: this.metadata }, (error, value) => {
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(value as T);
      });
      if (signal?.aborted) call.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  listTasks(request: ListTasksRequest = {}, options?: CallOptions): Promise<ListTasksResponse__Output> {
    return this.call((o, cb) => this.raw.listTasks(request, o.metadata, o, cb), options);
  }

  prewarm(taskId: string, count: number, options?: CallOptions): Promise<PrewarmResponse__Output> {
    return this.call((o, cb) => this.raw.prewarm({ taskId, count }, o.metadata, o, cb), { timeoutS: 30, ...options });
  }

  /** Starts the pulls of these tasks' images (the next batches) and says where each stands. */
  prefetch(taskIds: readonly string[], options?: CallOptions): Promise<PrefetchResponse__Output> {
    return this.call((o, cb) => this.raw.prefetch({ taskIds: [...taskIds] }, o.metadata, o, cb), options);
  }

  getServerInfo(options?: CallOptions): Promise<ServerInfo__Output> {
    return this.call((o, cb) => this.raw.getServerInfo({}, o.metadata, o, cb), { timeoutS: 10, ...options });
  }

  getTask(taskId: string, options?: CallOptions): Promise<Task__Output> {
    return this.call((o, cb) => this.raw.getTask({ taskId }, o.metadata, o, cb), options);
  }

  reset(request: ResetRequest, options?: CallOptions): Promise<ResetResponse__Output> {
    return this.call((o, cb) => this.raw.reset(request, o.metadata, o, cb), options);
  }

  step(
    episodeId: string,
    stepIndex: number,
    action: { name: string; arguments?: Record<string, unknown>; argumentsJson?: string; callId?: string },
    options?: CallOptions,
    /** The assistant's message that made this call, recorded in the episode's trajectory. */
    assistant?: { content?: string; reasoning?: string; model?: string },
  ): Promise<StepResponse__Output> {
    const argumentsJson = action.argumentsJson ?? JSON.stringify(action.arguments ?? {});
    const request = {
      episodeId,
      stepIndex,
      action: { name: action.name, argumentsJson, callId: action.callId ?? '' },
      ...(assistant
        ? { assistant: { content: assistant.content ?? '', reasoning: assistant.reasoning ?? '', model: assistant.model ?? '' } }
        : {}),
    };
    return this.call((o, cb) => this.raw.step(request, o.metadata, o, cb), options);
  }

  bash(episodeId: string, stepIndex: number, command: string, options?: CallOptions): Promise<StepResponse__Output> {
    return this.step(episodeId, stepIndex, { name: 'bash', arguments: { command } }, options);
  }

  submit(episodeId: string, stepIndex: number, options?: CallOptions): Promise<StepResponse__Output> {
    return this.step(episodeId, stepIndex, { name: 'submit_solution', arguments: {} }, { timeoutS: 3600, ...options });
  }

  /** Ctrl-C for the episode's running bash command: true when one was stopped. */
  async interrupt(episodeId: string, options?: CallOptions): Promise<boolean> {
    const response = await this.call<InterruptResponse__Output>((o, cb) => this.raw.interrupt({ episodeId }, o.metadata, o, cb), {
      timeoutS: 30,
      ...options,
    });
    return response.interrupted;
  }

  close(episodeId: string, options?: CallOptions): Promise<CloseResponse__Output> {
    return this.call((o, cb) => this.raw.Close({ episodeId }, o.metadata, o, cb), options);
  }

  /** Forks a live episode between steps into `count` children; the response lists their episode ids. */
  fork(
    episodeId: string,
    count: number,
    fork: { freshBudgets?: boolean; childEpisodeIds?: string[] } = {},
    options?: CallOptions,
  ): Promise<ForkResponse__Output> {
    return this.call((o, cb) => this.raw.fork({ episodeId, count, ...fork }, o.metadata, o, cb), { timeoutS: 600, ...options });
  }

  /** Starts an episode from a recorded trajectory's first steps, run again; the response says where they diverged. */
  replay(request: ReplayRequest, options?: CallOptions): Promise<ReplayResponse__Output> {
    return this.call((o, cb) => this.raw.replay(request, o.metadata, o, cb), { timeoutS: 3600, ...options });
  }

  evaluate(taskId: string, patch: string, options?: CallOptions): Promise<EvaluateResponse__Output> {
    return this.call((o, cb) => this.raw.evaluate({ taskId, patch }, o.metadata, o, cb), { timeoutS: 3600, ...options });
  }

  /** Plain-object view of a google.protobuf.Struct. */
  static structToObject(struct: { fields?: Record<string, unknown> } | null | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(struct?.fields ?? {})) out[key] = valueToJs(value);
    return out;
  }

  /** Closes the channel (the generated client's `close` is the Close RPC). */
  dispose(): void {
    grpc.Client.prototype.close.call(this.raw);
  }
}

function valueToJs(value: unknown): unknown {
  const v = value as Record<string, unknown> & { kind?: string };
  const kind = v.kind;
  if (kind === 'structValue') return SweEnvClient.structToObject(v['structValue'] as { fields?: Record<string, unknown> });
  if (kind === 'listValue') return ((v['listValue'] as { values?: unknown[] }).values ?? []).map(valueToJs);
  if (kind === 'nullValue') return null;
  return kind ? v[kind] : undefined;
}
