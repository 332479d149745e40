/**
 * Ctrl-C (SIGINT) and SIGTERM for a long CLI command. The first one aborts `signal`: the command
 * starts nothing new, cancels what runs, removes what it started and writes what is finished. A
 * second one quits at once (what was started is then left for the next run or any server's sweep
 * to remove: its containers name this process as their owner).
 */
export class Interrupt {
  private readonly controller = new AbortController();
  private received: NodeJS.Signals | undefined;
  private readonly listener = (signal: NodeJS.Signals): void => this.on(signal);

  constructor(private readonly finishing: string) {
    process.on('SIGINT', this.listener);
    process.on('SIGTERM', this.listener);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get interrupted(): boolean {
    return this.received !== undefined;
  }

  /** The shell's exit code for the signal received: 130 for SIGINT, 143 for SIGTERM. */
  get exitCode(): number {
    return this.received === 'SIGTERM' ? 143 : 130;
  }

  dispose(): void {
    process.off('SIGINT', this.listener);
    process.off('SIGTERM', this.listener);
  }

  private on(signal: NodeJS.Signals): void {
    if (this.received) {
      process.stderr.write("\nswe-env: interrupted again: quitting now; what was started is removed by the next run or a server's sweep\n");
      process.exit(signal === 'SIGTERM' ? 143 : 130);
    }
    this.received = signal;
    process.stderr.write(`\nswe-env: interrupted: ${this.finishing} (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)\n`);
    this.controller.abort(new Error(`interrupted by ${signal}`));
  }
}
