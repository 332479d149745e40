/**
 * A pull's progress from the engine's JSON stream: one event per layer step, `id` the layer,
 * `status` 'Pulling fs layer' / 'Waiting' / 'Downloading' (with byte counts) / 'Download complete'
 * / 'Extracting' / 'Pull complete' / 'Already exists'.
 */
export interface PullEvent {
  readonly status?: string;
  readonly id?: string;
  readonly progressDetail?: { readonly current?: number; readonly total?: number };
  readonly error?: string;
}

interface Layer {
  done: boolean;
  current: number;
  total: number;
}

const LAYER_STARTS = new Set([
  'Pulling fs layer',
  'Waiting',
  'Already exists',
  'Downloading',
  'Verifying Checksum',
  'Download complete',
  'Extracting',
  'Pull complete',
]);

export class PullProgress {
  private readonly layers = new Map<string, Layer>();

  /** Takes one event of the stream. */
  see(event: PullEvent): void {
    const { id, status } = event;
    if (!id || !status || !LAYER_STARTS.has(status)) return;
    const layer = this.layers.get(id) ?? { done: false, current: 0, total: 0 };
    this.layers.set(id, layer);
    const detail = event.progressDetail ?? {};
    if (status === 'Downloading') {
      layer.current = detail.current ?? layer.current;
      layer.total = detail.total ?? layer.total;
    } else if (status === 'Download complete' || status === 'Extracting' || status === 'Verifying Checksum') {
      // Extracting counts extracted bytes of the same blob: the download is whole by then.
      layer.current = layer.total;
    } else if (status === 'Pull complete' || status === 'Already exists') {
      layer.current = layer.total;
      layer.done = true;
    }
  }

  get bytesDone(): number {
    return [...this.layers.values()].reduce((sum, l) => sum + l.current, 0);
  }

  /** Bytes of the layers whose size the engine has said so far (0 before the first download). */
  get bytesTotal(): number {
    return [...this.layers.values()].reduce((sum, l) => sum + l.total, 0);
  }

  get layersDone(): number {
    return [...this.layers.values()].filter((l) => l.done).length;
  }

  get layersTotal(): number {
    return this.layers.size;
  }
}

/** `3.2 of 8.0 GB, 4/11 layers` for messages. */
export function describeProgress(p: { bytesDone: number; bytesTotal: number; layersDone: number; layersTotal: number }): string {
  if (p.layersTotal === 0) return 'not started';
  const gb = (n: number): string => (n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${(n / 1e6).toFixed(1)} MB`);
  return `${gb(p.bytesDone)} of ${p.bytesTotal > 0 ? gb(p.bytesTotal) : 'an unknown size'}, ${p.layersDone}/${p.layersTotal} layers`;
}
