import { CancelledError, DeadlineExceededError } from './errors.js';

/** Resolves after ms, or rejects when the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new CancelledError(typeof reason === 'string' ? reason : 'the call was cancelled');
}

/**
 * An AbortSignal that fires at an absolute deadline (ms since epoch), or never for Infinity.
 * `clear` drops the timer once the call is over, so finished calls do not keep one pending each.
 */
export function deadlineSignal(deadlineMs: number): { signal: AbortSignal | undefined; clear: () => void } {
  if (!Number.isFinite(deadlineMs)) return { signal: undefined, clear: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DeadlineExceededError('the call deadline passed')),
    Math.max(0, deadlineMs - Date.now()),
  );
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return AbortSignal.any(present);
}
