/** A one-line progress bar on stderr (plain lines when stderr is not a terminal). */
export class Progress {
  private done = 0;
  private open = false;
  constructor(
    private readonly total: number,
    private readonly label: string,
  ) {}

  /** Draws the bar without counting anything (at the start, so there is something to see). */
  show(detail: string): void {
    this.draw(detail);
  }

  tick(detail: string): void {
    this.done += 1;
    this.draw(detail);
    if (this.done === this.total) this.end();
  }

  /** Ends the bar's line (a terminal's), so what follows starts on a line of its own. */
  end(): void {
    if (this.open) process.stderr.write('\n');
    this.open = false;
  }

  private draw(detail: string): void {
    const width = 30;
    const filled = this.total === 0 ? width : Math.round((this.done / this.total) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ${this.label}`;
    if (process.stderr.isTTY) {
      process.stderr.write(`\r\x1b[K${bar} ${detail}`);
      this.open = true;
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
