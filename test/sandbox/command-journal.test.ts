import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitJournaledCommand, readCommandJournal, stepJournalKey } from '../../src/sandbox/command-journal.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ShellSession } from '../../src/sandbox/shell-session.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
let sandbox: Sandbox;
const opts = { timeoutMs: 10_000, outputLimitBytes: 64 * 1024 };
const soon = (): number => Date.now() + 20_000;

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
});

afterAll(async () => {
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

/** Waits until no agent shell is left in the container (a closed session's shell exits on its own). */
async function noShellLeft(): Promise<void> {
  await expect.poll(async () => (await readCommandJournal(sandbox)).shells, { timeout: 20_000 }).toEqual([]);
}

describe("the agent shell's command journal", () => {
  it('names the last journaled command with its shell, and its end with exit code and directory', async () => {
    const shell = await ShellSession.start(sandbox, '/tmp');
    try {
      const run = await shell.run('mkdir -p /tmp/j && cd /tmp/j && (exit 3)', { ...opts, journalKey: stepJournalKey(0) });
      expect(run.exitCode).toBe(3);
      const journal = await readCommandJournal(sandbox);
      expect(journal.start?.key).toBe('step-0');
      expect(journal.shells).toEqual([journal.start?.pid]);
      expect(journal.end).toEqual({ key: 'step-0', exitCode: 3, cwd: '/tmp/j' });
      expect(await awaitJournaledCommand(sandbox, 'step-0', Date.now() - 60_000, soon())).toEqual({
        kind: 'ended',
        exitCode: 3,
        cwd: '/tmp/j',
        timedOut: false,
      });
      // A command without a key leaves the journal as it was.
      await shell.run('cd /', opts);
      expect((await readCommandJournal(sandbox)).end?.cwd).toBe('/tmp/j');
    } finally {
      await shell.close();
    }
  });

  it('says a command never started only when no shell is left that could start it (a background subshell is not one)', async () => {
    const shell = await ShellSession.start(sandbox, '/tmp');
    // A forked subshell has the agent shell's command line; it must not pass for the shell.
    await shell.run('(sleep 600; :) &', { ...opts, journalKey: stepJournalKey(4) });
    await shell.close();
    await noShellLeft();
    expect(await awaitJournaledCommand(sandbox, 'step-5', Date.now() - 60_000, soon())).toEqual({ kind: 'not-started' });
    // A journal naming a later step than the one asked about is not a proof of anything.
    expect(await awaitJournaledCommand(sandbox, 'step-3', Date.now() - 60_000, soon())).toMatchObject({ kind: 'unknown' });
  });

  it('a new shell that ran nothing yet: the next command has not started', async () => {
    const shell = await ShellSession.start(sandbox, '/tmp');
    await shell.close();
    await noShellLeft();
    expect(await awaitJournaledCommand(sandbox, 'step-0', Date.now() - 60_000, soon())).toEqual({ kind: 'not-started' });
  });

  it('without a journal nothing is guessed', async () => {
    await sandbox.exec(['rm', '-rf', '/dev/shm/swe-env']);
    expect(await awaitJournaledCommand(sandbox, 'step-0', Date.now() - 60_000, soon())).toEqual({
      kind: 'unknown',
      reason: 'the container keeps no command journal',
    });
  });
});
