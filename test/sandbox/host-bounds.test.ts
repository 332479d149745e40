import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

// Family 6: host harm outside the sandbox's quota.
const provider = testProvider();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
});

afterAll(async () => {
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

/** Bytes the engine keeps on its host for the container's log (0 when it keeps none). */
async function engineLogBytes(): Promise<number> {
  const info = await provider.docker.getContainer(sandbox.id).inspect();
  if (!info.LogPath) return 0;
  return (await stat(info.LogPath)).size;
}

describe('the engine-side log of a sandbox', () => {
  it('does not grow with what the agent writes to PID 1’s stdout and stderr', async () => {
    const flood = await sandbox.exec(
      [
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        'head -c 20000000 /dev/zero | tr "\\0" x > /proc/1/fd/1; head -c 20000000 /dev/zero | tr "\\0" y > /proc/1/fd/2; echo done',
      ],
      { timeoutMs: 60_000 },
    );
    expect(flood.output.toString()).toContain('done');
    expect(await engineLogBytes()).toBeLessThan(1024 * 1024);
  });
});

describe('the disk quota, beyond the writable layer’s byte size', () => {
  const LIMIT = 64 * 1024 ** 2;
  const quotaSpec = (): ReturnType<typeof testSpec> =>
    testSpec({ workdir: '/tmp', limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 256, diskBytes: LIMIT } });
  const bash = (box: Sandbox, script: string): Promise<string> =>
    box.exec(['bash', '--noprofile', '--norc', '-c', script], { timeoutMs: 120_000 }).then((r) => r.output.toString());

  it('counts a deleted file a process keeps open', async () => {
    const box = await provider.create(quotaSpec());
    try {
      const out = await bash(
        box,
        'head -c 100000000 /dev/zero > /tmp/big; setsid bash -c "exec 3</tmp/big; rm /tmp/big; exec sleep 600" > /dev/null 2>&1 & while [ -e /tmp/big ]; do sleep 0.05; done; ls /tmp/big 2>&1; echo ok',
      );
      expect(out).toMatch(/No such file or directory\nok/);
      await provider.disk.checkAll();
      const fate = await box.fate(5_000);
      expect(fate?.diskOverrun?.usedBytes).toBeGreaterThan(LIMIT);
      expect(await box.isRunning()).toBe(false);
    } finally {
      await box.remove();
    }
  });

  it('charges every inode the filesystem’s bytes per inode, so empty files count', async () => {
    const box = await provider.create(quotaSpec());
    try {
      expect(await bash(box, 'mkdir -p /tmp/many && cd /tmp/many && seq 1 6000 | xargs touch && ls | wc -l')).toBe('6000\n');
      await provider.disk.checkAll();
      const fate = await box.fate(5_000);
      expect(fate?.diskOverrun?.usedBytes).toBeGreaterThan(LIMIT);
      expect(await box.isRunning()).toBe(false);
    } finally {
      await box.remove();
    }
  });

  it('leaves a sandbox with a few files and nothing hidden alone', async () => {
    const box = await provider.create(quotaSpec());
    try {
      await bash(box, 'mkdir -p /tmp/few && cd /tmp/few && seq 1 200 | xargs touch && head -c 1000000 /dev/zero > one');
      await provider.disk.checkAll();
      expect(provider.disk.overrun(box.id)).toBeUndefined();
      expect(await box.isRunning()).toBe(true);
    } finally {
      await box.remove();
    }
  });
});
