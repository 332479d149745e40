/** Percentiles of a sample of durations in milliseconds. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

export function describe(name: string, samples: readonly number[]): { name: string; n: number; p50: number; p95: number; mean: number } {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { name, n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), mean };
}

export function printRow(row: ReturnType<typeof describe>): void {
  const f = (x: number): string => x.toFixed(2).padStart(9);
  process.stdout.write(
    `${row.name.padEnd(44)} n=${String(row.n).padStart(4)}  p50=${f(row.p50)} ms  p95=${f(row.p95)} ms  mean=${f(row.mean)} ms\n`,
  );
}

/** `--name value` from the command line, or the fallback. */
export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Runs a benchmark's main, exiting non-zero with the error on failure. */
/** A `--name value` argument, or undefined. */
export function textArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
