import type Docker from 'dockerode';
import { statusCodeOf } from '../docker-exec.js';
import { fullName, parseReference } from './image-reference.js';

export interface CacheBudget {
  /** Over this many bytes of task images, the least recently used unpinned ones are removed. */
  readonly highBytes: number;
  /** Eviction stops once the task images are down to this. */
  readonly lowBytes: number;
}

export interface CacheDeps {
  /** The images the loaded tasks name: the only ones the cache may remove. */
  readonly taskImages: () => Iterable<string>;
  /** Whether something that is not a container yet needs the image (a starting Reset, a pull, a prefetch). */
  readonly pinned: (name: string) => boolean;
  /** When the image was last asked for (ms); 0 when never by this server. */
  readonly lastUsed: (name: string) => number;
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

interface CachedImage {
  readonly id: string;
  readonly names: string[];
  /** Bytes only this image holds (its layers no other image shares). */
  readonly ownBytes: number;
  readonly sharedBytes: number;
  readonly created: number;
}

export interface CacheReport {
  readonly bytes: number;
  readonly evicted: string[];
  /** Removals the engine refused because a container uses the image (never forced). */
  readonly refusedInUse: number;
}

/**
 * The bounded cache of task images on the engine. Only images every name of which a loaded task
 * uses are candidates: the base, build and the server's own images are never touched. An image
 * any container uses (live, warm, grading, stopped) is never removed: the engine says which, and a
 * removal is never forced, so even a container made between the look and the removal keeps it.
 */
export class ImageCache {
  evictions = 0;
  refusedInUse = 0;
  lastBytes = 0;
  /** Runs one at a time: two evictions reading the same list would remove twice as much. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly docker: Docker,
    readonly budget: CacheBudget,
    private readonly deps: CacheDeps,
  ) {}

  /** Brings the task images under the budget: over high, down to low (one run at a time). */
  enforce(reserveBytes = 0): Promise<CacheReport> {
    const run = this.queue.then(() => this.evict(reserveBytes));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Removes unpinned task images, least recently used first, until `freeNeeded` returns false. */
  async relieve(stillShort: () => Promise<boolean>): Promise<string[]> {
    const evicted: string[] = [];
    for (const image of await this.candidates()) {
      if (!(await stillShort())) break;
      if (await this.remove(image)) evicted.push(image.names[0]!);
    }
    return evicted;
  }

  /** The task images' bytes: each image's own layers, and the layers they share counted once. */
  async measure(): Promise<{ bytes: number; images: CachedImage[] }> {
    const wanted = new Set([...this.deps.taskImages()].map(canonical));
    const listed = await this.docker.listImages({ 'shared-size': true } as Docker.ListImagesOptions);
    const images: CachedImage[] = [];
    let sharedOf: Map<string, number> | undefined;
    for (const info of listed) {
      const names = (info.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
      if (names.length === 0 || !names.every((n) => wanted.has(canonical(n)))) continue;
      // Engines before API 1.42 ignore shared-size and answer -1: each image would count its whole
      // base. Their disk-usage call computes the shares (one call per measure, only when needed).
      if ((info.SharedSize ?? -1) < 0) sharedOf ??= await this.sharedSizes();
      const shared = Math.max(0, (info.SharedSize ?? -1) >= 0 ? info.SharedSize : (sharedOf?.get(info.Id) ?? 0));
      images.push({ id: info.Id, names, ownBytes: Math.max(0, info.Size - shared), sharedBytes: shared, created: info.Created * 1000 });
    }
    // Task images share their base: its layers count once (the largest share stands for them).
    const bytes = images.reduce((sum, i) => sum + i.ownBytes, 0) + images.reduce((max, i) => Math.max(max, i.sharedBytes), 0);
    this.lastBytes = bytes;
    return { bytes, images };
  }

  /** Each image's bytes shared with other images, from the engine's disk usage (`docker system df`). */
  private async sharedSizes(): Promise<Map<string, number>> {
    const usage = (await diskUsage(this.docker)) as { Images?: { Id: string; SharedSize?: number }[] | null };
    return new Map((usage.Images ?? []).map((i) => [i.Id, i.SharedSize ?? 0]));
  }

  /** The largest task image's own bytes: what one more pull may add. */
  async largestImageBytes(): Promise<number> {
    const { images } = await this.measure();
    return images.reduce((max, i) => Math.max(max, i.ownBytes), 0);
  }

  private async evict(reserveBytes: number): Promise<CacheReport> {
    const { bytes, images } = await this.measure();
    const evicted: string[] = [];
    const refusedBefore = this.refusedInUse;
    if (bytes + reserveBytes <= this.budget.highBytes) return { bytes, evicted, refusedInUse: 0 };
    let left = bytes;
    const target = Math.max(0, Math.min(this.budget.lowBytes, this.budget.highBytes - reserveBytes));
    for (const image of await this.candidates(images)) {
      if (left + reserveBytes <= target) break;
      if (await this.remove(image)) {
        left -= image.ownBytes;
        evicted.push(image.names[0]!);
      }
    }
    this.lastBytes = left;
    if (evicted.length > 0)
      this.deps.log?.('evicted task images', { evicted, bytesBefore: bytes, bytesAfter: left, highBytes: this.budget.highBytes });
    return { bytes: left, evicted, refusedInUse: this.refusedInUse - refusedBefore };
  }

  /** Unpinned task images no container uses, least recently used first. */
  private async candidates(images?: CachedImage[]): Promise<CachedImage[]> {
    const all = images ?? (await this.measure()).images;
    const used = new Set((await this.docker.listContainers({ all: true })).map((c) => c.ImageID));
    const lastUse = (i: CachedImage): number => Math.max(i.created, ...i.names.map((n) => this.deps.lastUsed(canonical(n))));
    return all
      .filter((i) => !used.has(i.id) && !i.names.some((n) => this.deps.pinned(canonical(n))))
      .sort((a, b) => lastUse(a) - lastUse(b));
  }

  /** Removes one image by each of its names, never forced; false when the engine kept it. */
  private async remove(image: CachedImage): Promise<boolean> {
    // Looked at again just before: a Reset may have pinned it since the list was made.
    if (image.names.some((n) => this.deps.pinned(canonical(n)))) return false;
    try {
      for (const name of image.names) await this.docker.getImage(name).remove();
      this.evictions += 1;
      return true;
    } catch (error) {
      if (statusCodeOf(error) === 409) this.refusedInUse += 1;
      else if (statusCodeOf(error) !== 404)
        this.deps.log?.('could not evict a task image', { image: image.names[0], error: String(error) });
      return false;
    }
  }
}

/** The disk-usage call under way in this process, shared by every caller that asks meanwhile. */
const usageInFlight = new WeakMap<Docker, Promise<unknown>>();

/**
 * The engine's disk usage. The engine runs one such call at a time and refuses the others ("a disk
 * usage operation is already running"): callers in this process share one call, and a refusal
 * (another process's call: a second server on the same engine) is waited out and asked again.
 */
async function diskUsage(docker: Docker): Promise<unknown> {
  const running = usageInFlight.get(docker);
  if (running) return running;
  const call = (async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await docker.df()) as unknown;
      } catch (error) {
        if (attempt >= 20 || !/already running/i.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250 * Math.min(attempt, 4)));
      }
    }
  })().finally(() => usageInFlight.delete(docker));
  usageInFlight.set(docker, call);
  return call;
}

/** One spelling per image name, so `ubuntu` and `docker.io/library/ubuntu:latest` meet. */
export function canonical(name: string): string {
  return fullName(parseReference(name));
}
