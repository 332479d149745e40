/**
 * After a restart, the episodes the server took over that no client has called yet. A trainer
 * whose client gave up on the dead server (its restart wait ran out, the sample was masked) never
 * comes back to them: each is given up once its grace is over, so its sandbox does not wait out the
 * whole idle timeout. A call of any client on the episode (Step, Close, a retried Reset) claims it,
 * and a claimed episode goes on as any other.
 */
export class AdoptionGrace {
  /** Episode id -> when it is given up (ms since the epoch). */
  private readonly unclaimed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly graceS: number,
    /** Called once the earliest grace is over (the registry's sweep also checks on every pass). */
    private readonly onDue: () => void,
  ) {}

  /** An episode the restart took over, given up at `now` + the grace unless a client calls it. */
  adopted(id: string, now = Date.now()): void {
    const deadline = now + this.graceS * 1000;
    this.unclaimed.set(id, deadline);
    this.schedule(deadline);
  }

  /** A client called the episode: it is the client's again. */
  claim(id: string): void {
    this.unclaimed.delete(id);
  }

  isUnclaimed(id: string): boolean {
    return this.unclaimed.has(id);
  }

  /** The unclaimed episodes whose grace is over at `now`. */
  due(now = Date.now()): string[] {
    return [...this.unclaimed].filter(([, deadline]) => deadline <= now).map(([id]) => id);
  }

  get size(): number {
    return this.unclaimed.size;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(deadline: number): void {
    if (this.timer || this.stopped) return;
    // A little past the deadline, so that `due` at the timer's time holds it.
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.onDue();
        const next = Math.min(...this.unclaimed.values());
        if (Number.isFinite(next) && next > Date.now()) this.schedule(next);
      },
      Math.max(0, deadline - Date.now()) + 50,
    );
    this.timer.unref();
  }
}
