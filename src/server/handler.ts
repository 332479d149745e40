import type * as grpc from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { anySignal, deadlineSignal } from '../common/abort.js';
import { CancelledError, messageOf, statusOf, SweEnvError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';

const STATUS_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(status)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
);

export interface CallContext {
  /** Fires on the call's deadline, the client's cancel, or server shutdown. */
  readonly signal: AbortSignal;
}

/**
 * Wraps an async unary handler: grpc-js ignores a rejected promise, so without this a throw would
 * leave the call hanging. Every outcome becomes exactly one callback with a proper status.
 */
/** Told of every call's outcome (metrics): its method, status code name and seconds. */
export type CallObserver = (method: string, code: string, seconds: number) => void;

export function unary<Req, Res>(
  method: string,
  logger: Logger,
  shutdown: AbortSignal,
  handler: (request: Req, context: CallContext) => Promise<Res>,
  observe?: CallObserver,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const cancelled = new AbortController();
    call.on('cancelled', () => cancelled.abort(new CancelledError('the client cancelled the call')));
    const deadline = call.getDeadline();
    const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number(deadline);
    // Give up a little before the client does, so it gets our status (RESOURCE_EXHAUSTED...) rather
    // than a bare DEADLINE_EXCEEDED.
    const margin = Math.min(500, Math.max(0, (deadlineMs - Date.now()) * 0.1));
    const deadlineAbort = deadlineSignal(deadlineMs - margin);
    const signal = anySignal([cancelled.signal, deadlineAbort.signal, shutdown]);
    const started = Date.now();
    let answered = false;
    const answer = (error: grpc.ServiceError | null, response?: Res): void => {
      if (answered) return;
      answered = true;
      deadlineAbort.clear();
      observe?.(method, error ? (STATUS_NAMES[error.code] ?? String(error.code)) : 'OK', (Date.now() - started) / 1000);
      try {
        callback(error, response);
      } catch (callbackError) {
        logger.error({ err: callbackError, method }, 'gRPC callback threw');
      }
    };
    let pending: Promise<Res>;
    try {
      pending = handler(call.request, { signal });
    } catch (error) {
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.then(
      (response) => {
        logger.debug({ method, ms: Date.now() - started }, 'call ok');
        answer(null, response);
      },
      (error: unknown) => {
        const code = statusOf(error);
        if (error instanceof SweEnvError && error.kind !== 'internal' && error.kind !== 'infra') {
          logger.info({ method, code, msg: messageOf(error) }, 'call failed');
        } else {
          logger.error({ method, err: error }, 'call failed');
        }
        answer({ name: 'Error', message: messageOf(error), code, details: messageOf(error) } as grpc.ServiceError);
      },
    );
  };
}
