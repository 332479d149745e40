import { describe, expect, it } from 'vitest';
import { captureChange } from '../../src/reward/patch-capture.js';
import type { ExecResult, Sandbox } from '../../src/sandbox/sandbox.js';

/**
 * A sandbox that ends while its change is read (the disk watchdog's kill of a sandbox over its
 * quota can land then) reads as if its files were gone: graded as it was, that is an empty or
 * partial change scored with no reason. Against scripted sandboxes: the engine's own watchdog and
 * capture are in test/server/disk-quota.test.ts and test/reward/capture-trust.test.ts.
 */
const done = (output = ''): ExecResult => ({
  exitCode: 0,
  output: Buffer.from(output),
  stderr: '',
  outputBytes: output.length,
  omittedBytes: 0,
  timedOut: false,
  durationMs: 1,
});

function agent(running: () => boolean, stat: Sandbox['statPath'] = () => Promise.resolve(undefined)): Sandbox {
  const fake: Partial<Sandbox> = {
    pause: () => Promise.resolve(),
    unpause: () => Promise.resolve(),
    isRunning: () => Promise.resolve(running()),
    changes: () => Promise.resolve([{ path: '/testbed/fix.py', kind: 'added' as const }]),
    // Gone by the time it is read (by default).
    statPath: stat,
  };
  return fake as Sandbox;
}

function scratch(): Sandbox {
  const fake: Partial<Sandbox> = {
    putArchive: () => Promise.resolve(),
    exec: () => Promise.resolve(done()),
    remove: () => Promise.resolve(),
  };
  return fake as Sandbox;
}

const input = { workdir: '/testbed', baseCommit: 'a'.repeat(40), maxPatchBytes: 1024 * 1024, timeoutMs: 10_000 };

describe('a sandbox that ends while its change is read', () => {
  it('is not captured as the files it still had: the capture fails for the caller to ask why it ended', async () => {
    // Frozen (the engine's pause granted), ended by the time its files were read.
    const result = await captureChange(
      agent(() => false),
      () => Promise.resolve(scratch()),
      input,
    );
    expect(result).toMatchObject({ ok: false, infra: true, error: 'the sandbox stopped while its change was read' });
  });

  it('a listed path gone from a sandbox still running is left out, as before', async () => {
    const result = await captureChange(
      agent(() => true),
      () => Promise.resolve(scratch()),
      input,
    );
    expect(result).toMatchObject({ ok: true });
  });

  it("a read that fails because the sandbox ended is not the model's unreadable change either", async () => {
    const result = await captureChange(
      agent(
        () => false,
        () => Promise.reject(new Error('cannot stat /testbed/fix.py: no such container')),
      ),
      () => Promise.resolve(scratch()),
      input,
    );
    expect(result).toMatchObject({ ok: false, infra: true, error: 'the sandbox stopped while its change was read' });
  });
});
