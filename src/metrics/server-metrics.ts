import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GradeReport } from '../reward/report.js';

/** What the gauges read when Prometheus scrapes (the server's own state, not copies of it). */
export interface MetricSources {
  liveEpisodes(): number;
  warmSandboxes(): number;
  gradingsRunning(): number;
  startsInFlight(): number;
  hostFreeBytes(): Promise<number | undefined>;
  readonly maxEpisodes: number;
  readonly minFreeBytes: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** Tools the metrics name; anything else the model calls is "other" (bounded label values). */
const TOOLS = new Set(['bash', 'submit_solution']);

/**
 * The server's Prometheus metrics, in a registry of its own (several servers can share a process,
 * as the tests do). Names are prefixed swe_env_.
 */
type MetricsServerTrajectories = { readonly dropped: Readonly<Record<string, number>>; readonly totalBytes: number } | undefined;

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly rpcs: Counter<'method' | 'code'>;
  private readonly rpcSeconds: Histogram<'method'>;
  private readonly steps: Counter<'tool' | 'status'>;
  private readonly stepSeconds: Histogram<'tool'>;
  private readonly gradings: Counter<'outcome'>;
  private readonly gradingSeconds: Histogram<'phase'>;
  private readonly infraErrors: Counter<'cause'>;
  private readonly containerStarts: Counter<'role' | 'outcome'>;
  private readonly containerStartSeconds: Histogram<'role'>;
  readonly leftoversRemoved: Counter;
  private readonly restartTakeover: Counter<'outcome'>;
  /** The trajectory recorder, read at scrape time (set once it exists). */
  trajectories: MetricsServerTrajectories;
  /** Episode records the journal could not write (read at scrape time; set once the journal exists). */
  journalDropped: () => number = () => 0;

  /** What a start took over from an earlier run of its server id (restart survival). */
  recovered(report: { adopted: number; resumedSteps: number; lost: number; ended: number; tombstones: number; removed: number }): void {
    this.restartTakeover.inc({ outcome: 'adopted' }, report.adopted);
    this.restartTakeover.inc({ outcome: 'resumed_step' }, report.resumedSteps);
    this.restartTakeover.inc({ outcome: 'lost' }, report.lost);
    this.restartTakeover.inc({ outcome: 'ended' }, report.ended);
    this.restartTakeover.inc({ outcome: 'tombstone' }, report.tombstones);
    this.leftoversRemoved.inc(report.removed);
  }

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'swe_env_' });
    this.rpcs = new Counter({
      name: 'swe_env_rpcs_total',
      help: 'gRPC calls by method and status code (RESOURCE_EXHAUSTED: admission refusals)',
      labelNames: ['method', 'code'],
      registers,
    });
    this.rpcSeconds = new Histogram({
      name: 'swe_env_rpc_seconds',
      help: 'gRPC call latency by method (Reset: admission wait and container start included)',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.steps = new Counter({
      name: 'swe_env_steps_total',
      help: 'episode steps by tool and step status',
      labelNames: ['tool', 'status'],
      registers,
    });
    this.stepSeconds = new Histogram({
      name: 'swe_env_step_seconds',
      help: 'step latency by tool (submit: grading included)',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.gradings = new Counter({
      name: 'swe_env_gradings_total',
      help: 'gradings by outcome (resolved, unresolved, infra_error)',
      labelNames: ['outcome'],
      registers,
    });
    this.gradingSeconds = new Histogram({
      name: 'swe_env_grading_seconds',
      help: 'grading duration by phase',
      labelNames: ['phase'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.infraErrors = new Counter({
      name: 'swe_env_infra_errors_total',
      help: 'environment failures (masked samples) by where they happened',
      labelNames: ['cause'],
      registers,
    });
    this.containerStarts = new Counter({
      name: 'swe_env_container_starts_total',
      help: 'container starts by role and outcome',
      labelNames: ['role', 'outcome'],
      registers,
    });
    this.containerStartSeconds = new Histogram({
      name: 'swe_env_container_start_seconds',
      help: 'container start latency by role',
      labelNames: ['role'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.leftoversRemoved = new Counter({
      name: 'swe_env_leftover_containers_removed_total',
      help: 'containers of an earlier run with this server id removed at start (restarts)',
      registers,
    });
    this.restartTakeover = new Counter({
      name: 'swe_env_restart_episodes_total',
      help: "an earlier run's episodes this start took over: adopted (going on), resumed_step (a step running at the crash), lost (container gone), ended, tombstone",
      labelNames: ['outcome'],
      registers,
    });
    const dropped = (): number => this.journalDropped();
    const recorder = (): MetricsServerTrajectories => this.trajectories;
    new Gauge({
      name: 'swe_env_trajectory_records_dropped',
      help: 'trajectory lines not recorded, by reason (total_bound, episode_bound, write_error); episodes never fail for it',
      labelNames: ['reason'],
      registers,
      collect() {
        for (const [reason, n] of Object.entries(recorder()?.dropped ?? {})) this.set({ reason }, n);
      },
    });
    new Gauge({
      name: 'swe_env_trajectory_bytes',
      help: 'bytes in the trajectory directory (measured at start, plus what this run wrote)',
      registers,
      collect() {
        this.set(recorder()?.totalBytes ?? 0);
      },
    });
    new Gauge({
      name: 'swe_env_episode_records_dropped',
      help: 'episode records that could not be written (those episodes will not survive a restart)',
      registers,
      collect() {
        this.set(dropped());
      },
    });
    new Gauge({
      name: 'swe_env_live_episodes',
      help: 'live episodes (one sandbox each)',
      registers,
      collect() {
        this.set(sources.liveEpisodes());
      },
    });
    new Gauge({
      name: 'swe_env_warm_sandboxes',
      help: 'sandboxes started and ready for a Reset (Prewarm)',
      registers,
      collect() {
        this.set(sources.warmSandboxes());
      },
    });
    new Gauge({
      name: 'swe_env_max_episodes',
      help: 'live episodes at most',
      registers,
      collect() {
        this.set(sources.maxEpisodes);
      },
    });
    new Gauge({
      name: 'swe_env_gradings_running',
      help: 'gradings holding a place in the pool',
      registers,
      collect() {
        this.set(sources.gradingsRunning());
      },
    });
    new Gauge({
      name: 'swe_env_starts_in_flight',
      help: 'container starts under way',
      registers,
      collect() {
        this.set(sources.startsInFlight());
      },
    });
    new Gauge({
      name: 'swe_env_host_free_bytes',
      help: "free space of the engine's disk (-1: not measurable from here)",
      registers,
      async collect() {
        this.set((await sources.hostFreeBytes().catch(() => undefined)) ?? -1);
      },
    });
    new Gauge({
      name: 'swe_env_min_free_bytes',
      help: 'below this free space Reset is refused',
      registers,
      collect() {
        this.set(sources.minFreeBytes);
      },
    });
  }

  rpc(method: string, code: string, seconds: number): void {
    this.rpcs.inc({ method, code });
    this.rpcSeconds.observe({ method }, seconds);
  }

  step(tool: string, status: string, seconds: number): void {
    const name = TOOLS.has(tool) ? tool : 'other';
    this.steps.inc({ tool: name, status });
    this.stepSeconds.observe({ tool: name }, seconds);
    if (status === 'INFRA_ERROR') this.infraErrors.inc({ cause: 'step' });
  }

  graded(report: GradeReport): void {
    this.gradings.inc({ outcome: report.infraError ? 'infra_error' : report.resolved ? 'resolved' : 'unresolved' });
    if (report.infraError) this.infraErrors.inc({ cause: 'grading' });
    const d = report.durations;
    const phases: Array<[string, number]> = [
      ['capture', d.captureS],
      ['container_start', d.containerStartS],
      ['patch', d.patchS],
      ['install', d.installS],
      ['tests', d.testRunS],
      ['total', d.totalS],
    ];
    for (const [phase, seconds] of phases) this.gradingSeconds.observe({ phase }, seconds);
  }

  containerStart(role: string, seconds: number, ok: boolean): void {
    this.containerStarts.inc({ role, outcome: ok ? 'started' : 'failed' });
    if (ok) this.containerStartSeconds.observe({ role }, seconds);
    else this.infraErrors.inc({ cause: 'container_start' });
  }
}
