import { abortReason } from './abort.js';

/**
 * A counting semaphore whose waiters give up when their AbortSignal fires (the call's deadline),
 * so admission control turns "full" into a clear error instead of an unbounded queue.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<{ resolve: () => void; reject: (e: Error) => void; signal?: AbortSignal; onAbort?: () => void }> = [];

  constructor(readonly capacity: number) {
    this.available = capacity;
  }

  /** Permits held now (what admission reports as in use). */
  get inUse(): number {
    return this.capacity - this.available;
  }

  /** Takes a permit even when none is free (an episode a restart re-adopted holds one). */
  take(): void {
    this.available -= 1;
  }

  tryAcquire(): boolean {
    if (this.available > 0 && this.waiters.length === 0) {
      this.available -= 1;
      return true;
    }
    return false;
  }

  /** Waits for a permit until the signal aborts; rejects with the signal's reason then. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter: (typeof this.waiters)[number] = { resolve, reject };
      if (signal) {
        waiter.signal = signal;
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  release(): void {
    if (this.available < 0) {
      // Over capacity (permits taken by force): this permit pays that back, nobody is woken.
      this.available += 1;
      return;
    }
    const next = this.waiters.shift();
    if (next) {
      if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
      next.resolve();
      return;
    }
    this.available = Math.min(this.capacity, this.available + 1);
  }

  async with<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
