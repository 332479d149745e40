import { createInterface } from 'node:readline';
import { SweEnvClient, type ClientSecurity } from '../client/client.js';
import type { GradeReport__Output } from '../generated/swe_env/v1/GradeReport.js';
import { messageOf } from '../common/errors.js';

const HELP =
  'Type a bash command to run it in the episode (a heredoc, or lines ending in \\, are sent with their following lines as one step). `:submit` grades and ends the episode, `:quit` closes it, `:help` shows this.';

/**
 * Gathers typed lines into one command: a line ending in a backslash goes on, and a heredoc
 * (`<<EOF`, `<<-'EOF'`, `<<"EOF"`) goes on until its delimiter line. Undefined while incomplete.
 */
export class CommandBuffer {
  private lines: string[] = [];
  private delimiters: string[] = [];

  push(line: string): string | undefined {
    this.lines.push(line);
    if (this.delimiters.length > 0) {
      const want = this.delimiters[0]!;
      if (line === want || line.replace(/^\t+/, '') === want) this.delimiters.shift();
    } else {
      for (const m of line.matchAll(/<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/g)) this.delimiters.push(m[2]!);
    }
    if (this.delimiters.length > 0 || (this.delimiters.length === 0 && /(^|[^\\])\\$/.test(line))) return undefined;
    const command = this.lines.join('\n');
    this.lines = [];
    return command;
  }

  get pending(): boolean {
    return this.lines.length > 0;
  }

  /** Drops a command typed in part (Ctrl-C at a continuation prompt). */
  clear(): void {
    this.lines = [];
    this.delimiters = [];
  }
}

export function formatReport(report: GradeReport__Output): string {
  const lines = [`resolved: ${report.resolved}   reward: ${report.reward}   resolution: ${report.resolution.replace('RESOLUTION_', '')}`];
  if (report.infraError) lines.push(`INFRA ERROR: ${report.error}`);
  else if (report.error) lines.push(`error: ${report.error}`);
  lines.push(
    `patch: ${report.patchEmpty ? 'empty' : `${report.patchBytes} bytes, ${report.patchApplied ? `applied with ${report.patchApplyMethod}` : 'NOT applied'}`}`,
  );
  lines.push(`tests: \`${report.testCommand}\` exit ${report.testExitCode}${report.testTimedOut ? ' (timed out)' : ''}`);
  for (const [title, list] of [
    ['FAIL_TO_PASS', report.failToPass],
    ['PASS_TO_PASS', report.passToPass],
  ] as const) {
    lines.push(`${title}:`);
    for (const t of list) lines.push(`  ${t.status.replace('TEST_STATUS_', '').padEnd(8)} ${t.name}`);
  }
  const d = report.durations;
  if (report.install)
    lines.push(
      `install: ${report.install.ran ? `re-run (exit ${report.install.exitCode}, ${report.install.seconds}s)` : 'not re-run'}: ${report.install.reason}`,
    );
  if (report.harness)
    lines.push(
      `official harness (${report.harness.generation}): ${report.harness.resolved ? 'resolved' : 'not resolved'}${report.harness.invalid ? ` (${report.harness.invalid})` : ''}; reward follows ${report.rewardRule}`,
    );
  if (d)
    lines.push(
      `durations: capture ${d.captureS}s, container ${d.containerStartS}s, patch ${d.patchS}s, install ${d.installS}s, tests ${d.testRunS}s, total ${d.totalS}s`,
    );
  return lines.join('\n');
}

/** An episode stepped by hand: a researcher's view of exactly what the model would see. */
export async function runShell(address: string, taskId: string, security: ClientSecurity = {}): Promise<void> {
  const client = new SweEnvClient(address, {}, security);
  const reset = await client.reset({ taskId }, { timeoutS: 300 });
  const episodeId = reset.episodeId;
  process.stdout.write(`${reset.observation}\n\n[episode ${episodeId}] ${HELP} Ctrl-C stops a running command; the episode goes on.\n`);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY, prompt: '$ ' });
  let step = 0;
  let running: 'bash' | 'submit' | undefined;
  const buffer = new CommandBuffer();
  // Ctrl-C as in a terminal: it stops the running command, or drops the line being typed; it
  // never ends the episode (:quit or end of input does). A terminal's ^C reaches readline; a
  // signal sent to the process (or piped input) reaches the process.
  const onInterrupt = (): void => {
    if (running === 'bash') {
      process.stdout.write('^C\n');
      client.interrupt(episodeId).catch((error: unknown) => process.stderr.write(`swe-env: could not interrupt: ${messageOf(error)}\n`));
    } else if (running === 'submit') {
      process.stdout.write('^C (grading runs to its end)\n');
    } else {
      buffer.clear();
      process.stdout.write('^C (:quit leaves, :submit grades)\n');
      rl.setPrompt('$ ');
      rl.prompt();
    }
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  try {
    rl.prompt();
    // Async iteration keeps lines that arrive before they are asked for (piped input, scripts).
    for await (const typed of rl) {
      const line = buffer.pending ? buffer.push(typed) : typed.trim().startsWith(':') ? typed : buffer.push(typed);
      if (line === undefined) {
        rl.setPrompt('> ');
        rl.prompt();
        continue;
      }
      rl.setPrompt('$ ');
      const command = line.trim();
      if (command === ':quit' || command === ':q') break;
      if (command === ':help') process.stdout.write(`${HELP}\n`);
      if (command === '' || command === ':help') {
        rl.prompt();
        continue;
      }
      running = command === ':submit' ? 'submit' : 'bash';
      const response = await (running === 'submit' ? client.submit(episodeId, step) : client.bash(episodeId, step, line)).finally(
        () => (running = undefined),
      );
      step += 1;
      process.stdout.write(response.observation);
      if (response.observation && !response.observation.endsWith('\n')) process.stdout.write('\n');
      const status = response.status.replace('STEP_STATUS_', '');
      if (!response.report && (status !== 'OK' || response.exitCode > 0))
        process.stdout.write(`[status ${status}, exit ${response.exitCode}]\n`);
      if (response.report) process.stdout.write(`${formatReport(response.report)}\n`);
      if (response.terminated || response.truncated) {
        process.stdout.write(`[episode ended: reward ${response.reward}]\n`);
        break;
      }
      rl.prompt();
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
    const closed = await client.close(episodeId, { timeoutS: 60 }).catch(() => undefined);
    if (closed?.summary) process.stdout.write(`[closed after ${closed.summary.steps} steps, reward ${closed.summary.reward}]\n`);
    client.dispose();
  }
}
