import type { Command } from 'commander';
import { DEFAULTS } from '../server/config.js';
import type { ImageSupplyConfig } from '../server/config.js';
import { collect, number } from './options.js';

const GB = 1024 ** 3;

/** The pull and cache flags `serve` and `images pull` share. */
export function addPullOptions(command: Command): Command {
  const d = DEFAULTS.images;
  return command
    .option('--max-pulls <n>', `image pulls at once at most; more wait in a queue (default ${d.maxPulls})`, number)
    .option(
      '--pull-retries <n>',
      `tries after the first when a registry answers 429/5xx or the network fails (default ${d.pullRetries})`,
      number,
    )
    .option('--pull-backoff <s>', `the first wait before a retry; it doubles per try, up to a minute (default ${d.pullBackoffS})`, number)
    .option(
      '--registry-config <file>',
      "per-registry credentials in Docker's config.json format (default: $DOCKER_CONFIG/config.json, else ~/.docker/config.json); never logged",
    )
    .option(
      '--registry-mirror <from=to>',
      'pull images named for FROM (a registry, or registry/path prefix) from TO first, e.g. docker.io=127.0.0.1:5000 (repeatable)',
      collect,
    );
}

/** The cache flags: only a server keeps a budget (a one-shot pull never evicts). */
export function addCacheOptions(command: Command): Command {
  const d = DEFAULTS.images;
  return command
    .option(
      '--image-cache-gb <n>',
      'disk budget for task images: over it, least recently used images nothing needs are removed (default: no budget)',
      number,
    )
    .option('--image-cache-low-gb <n>', 'eviction stops at this many GB of task images (default 80% of --image-cache-gb)', number)
    .option('--prefetch-pin <s>', `a prefetched image is kept from eviction this long (default ${d.prefetchPinS})`, number);
}

export function imageSupplyInput(o: Record<string, unknown>): Partial<ImageSupplyConfig> {
  const gb = (key: string): number | undefined => (o[key] === undefined ? undefined : Math.round((o[key] as number) * GB));
  return {
    maxPulls: o['maxPulls'] as number | undefined,
    pullRetries: o['pullRetries'] as number | undefined,
    pullBackoffS: o['pullBackoff'] as number | undefined,
    registryConfig: o['registryConfig'] as string | undefined,
    registryMirrors: o['registryMirror'] as string[] | undefined,
    cacheHighBytes: gb('imageCacheGb'),
    cacheLowBytes: gb('imageCacheLowGb'),
    prefetchPinS: o['prefetchPin'] as number | undefined,
  };
}
