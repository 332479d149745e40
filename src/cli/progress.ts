/** A one-line progress bar on stderr (plain lines when stderr is not a terminal). */
export class Progress {
  private done = 0;
  constructor(
    private readonly total: number,
    private readonly label: string,
  ) {}

  tick(detail: string): void {
    this.done += 1;
    const width = 30;
    const filled = this.total === 0 ? width : Math.round((this.done / this.total) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ${this.label}`;
    if (process.stderr.isTTY) {
      process.stderr.write(`\r\x1b[K${bar} ${detail}`);
      if (this.done === this.total) process.stderr.write('\n');
    } else {
      process.stderr.write(`${bar} ${detail}\n`);
    }
  }
}

/** Runs fn over items with at most `concurrency` at once, keeping the input order in the results. */
export async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
