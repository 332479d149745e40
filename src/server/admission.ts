import { DeadlineExceededError, InvalidArgumentError, ResourceExhaustedError } from '../common/errors.js';
import type { Semaphore } from '../common/semaphore.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { EpisodeDefaults, ServerConfig } from './config.js';

/** A Reset's options against the server's defaults and bounds: 0 or absent is the default, over a bound is refused. */
export function effectiveOptions(config: Pick<ServerConfig, 'defaults' | 'bounds'>, requested: Partial<EpisodeDefaults>): EpisodeDefaults {
  const d = config.defaults;
  const b = config.bounds;
  const pick = (key: 'maxSteps' | 'commandTimeoutS' | 'episodeTimeoutS' | 'outputLimitBytes' | 'idleTimeoutS'): number => {
    const value = requested[key];
    if (value === undefined || value === 0) return d[key];
    if (!Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`options.${key} must be positive, got ${value}`);
    if (value > b[key]) throw new InvalidArgumentError(`options.${key} is ${value}, over this server's limit of ${b[key]}`);
    return value;
  };
  return Object.freeze({
    maxSteps: Math.floor(pick('maxSteps')),
    commandTimeoutS: pick('commandTimeoutS'),
    episodeTimeoutS: pick('episodeTimeoutS'),
    outputLimitBytes: Math.floor(pick('outputLimitBytes')),
    idleTimeoutS: pick('idleTimeoutS'),
    truncation: requested.truncation ?? d.truncation,
  });
}

/**
 * Below the free-space watermark a new sandbox could fill the engine's disk for every episode.
 * Task images nothing needs now are evicted first (when the server has an image budget), so a
 * disk filled by the cache does not refuse every Reset until someone prunes.
 */
export async function assertDiskRoom(
  provider: Pick<SandboxProvider, 'hostFreeBytes'> & { relieveDisk?: (short: () => Promise<boolean>) => Promise<string[]> },
  floor: number,
): Promise<void> {
  if (floor <= 0) return;
  let free = await provider.hostFreeBytes();
  if (free !== undefined && free < floor && provider.relieveDisk) {
    await provider.relieveDisk(async () => ((await provider.hostFreeBytes()) ?? floor) < floor);
    free = await provider.hostFreeBytes();
  }
  if (free !== undefined && free < floor) {
    throw new ResourceExhaustedError(
      `the container engine's disk is nearly full: ${mib(free)} MiB free, below the ${mib(floor)} MiB this server keeps free; try again later or on another server`,
    );
  }
}

/** A place in a bounded pool, waiting up to the call's deadline; no room by then is RESOURCE_EXHAUSTED saying which bound. */
export async function acquireOrExhausted(semaphore: Semaphore, signal: AbortSignal | undefined, full: () => string): Promise<void> {
  try {
    await semaphore.acquire(signal);
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw new ResourceExhaustedError(`${full()}; no room before the call's deadline`);
    throw error;
  }
}

function mib(bytes: number): number {
  return Math.floor(bytes / 1024 ** 2);
}
