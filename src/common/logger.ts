import { pino, destination, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Structured logs to stderr; stdout stays free for CLI output. On a terminal they are rendered as
 * readable lines (pino-pretty); piped or collected (CI, Kubernetes) they stay one JSON object a line.
 */
export function createLogger(level: string = process.env['SWE_ENV_LOG_LEVEL'] ?? 'info'): Logger {
  const options = { level, base: { svc: 'swe-env' } };
  if (process.stderr.isTTY && process.env['SWE_ENV_LOG_FORMAT'] !== 'json') {
    return pino(
      options,
      pretty({ destination: 2, sync: true, singleLine: true, ignore: 'pid,hostname,svc', translateTime: 'SYS:HH:MM:ss.l' }),
    );
  }
  return pino(options, destination(2));
}
