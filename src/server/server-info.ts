import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/paths.js';
import type { Semaphore } from '../common/semaphore.js';
import type { Grader } from '../reward/grader.js';
import type { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import type { ServerInfo } from '../generated/swe_env/v1/ServerInfo.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { ServerConfig } from './config.js';
import type { EpisodeRegistry } from './episode-registry.js';
import { supplyToProto } from './prefetch.js';

const IMAGES_TTL_MS = 30_000;

export const VERSION: string = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** An image name as the engine lists it: `repo:tag`, `:latest` when the name has no tag. */
function withTag(image: string): string {
  const slash = image.lastIndexOf('/');
  return image.slice(slash + 1).includes(':') ? image : `${image}:latest`;
}

/**
 * What the server can take now and who it is, for a fleet client's placement. The engine's image
 * list is the one costly part: it is read at most every 30 s.
 */
export class ServerInfoSource {
  private images: { at: number; names: string[]; stamp: number } | undefined;

  constructor(
    private readonly deps: {
      config: Readonly<ServerConfig>;
      tasks: TaskStore;
      registry: EpisodeRegistry;
      grader: Grader;
      starts: Semaphore;
      provider: DockerSandboxProvider;
    },
  ) {}

  async info(): Promise<ServerInfo> {
    const { config, tasks, registry, grader, starts, provider } = this.deps;
    const free = await provider.hostFreeBytes().catch(() => undefined);
    const { engine, runtime } = await provider.identity.identity();
    return {
      serverId: config.serverId,
      version: VERSION,
      liveEpisodes: registry.liveCount,
      maxEpisodes: config.maxEpisodes,
      gradingsRunning: grader.gradingsRunning,
      maxGradings: config.maxGradings,
      startsInFlight: starts.inUse,
      maxStarts: config.maxConcurrentStarts,
      taskCount: tasks.size,
      images: await this.presentImages(),
      freeDiskBytes: free ?? -1,
      minFreeBytes: config.minHostFreeBytes,
      draining: registry.draining,
      startedAt: registry.started.toISOString(),
      warmSandboxes: registry.warm.warmCount,
      imageSupply: supplyToProto(provider.images.snapshot()),
      engine,
      runtime,
    };
  }

  private async presentImages(): Promise<string[]> {
    // A pull or an eviction since the last look changes the answer: placement must see it now.
    const supply = this.deps.provider.images;
    const stamp = supply.pulls.pullsDone * 1_000_003 + (supply.cache?.evictions ?? 0);
    if (this.images && this.images.stamp === stamp && Date.now() - this.images.at < IMAGES_TTL_MS) return this.images.names;
    const tags = await this.deps.provider.imageTags().catch(() => new Set<string>());
    const wanted = new Set(this.deps.tasks.list().map((t) => t.image));
    const names = [...wanted].filter((image) => tags.has(withTag(image))).sort();
    this.images = { at: Date.now(), names, stamp };
    return names;
  }
}
