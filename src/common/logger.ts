import { pino, destination, type Logger } from 'pino';

export type { Logger };

/** Structured logs to stderr; stdout stays free for CLI output. */
export function createLogger(level: string = process.env['SWE_ENV_LOG_LEVEL'] ?? 'info'): Logger {
  return pino({ level, base: { svc: 'swe-env' } }, destination(2));
}
