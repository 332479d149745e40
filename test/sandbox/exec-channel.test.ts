/**
 * The exec channel (commands through one process attached to the container) against the engine's
 * own exec: the same commands give the same results, files land as the engine's copy lands them,
 * and once a command the gate refuses comes, the channel's process and folder are gone before it
 * starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelledSandbox } from '../../src/sandbox/channelled-sandbox.js';
import { ExecChannel } from '../../src/sandbox/exec-channel.js';
import type { ExecOptions, Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
const DIR = '/swe_env/grading/channel';
const boxes: Sandbox[] = [];
let sandbox: Sandbox;
let channel: ExecChannel;

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
  boxes.push(sandbox);
  const opened = await ExecChannel.open(sandbox, DIR);
  if (!opened) throw new Error('the base image cannot run the exec channel');
  channel = opened;
});

afterAll(async () => {
  channel?.destroy();
  await disposeAll(provider, boxes);
  await expectNoContainers(provider);
});

const bash = (script: string, ...args: string[]): string[] => ['bash', '--noprofile', '--norc', '-c', script, 'probe', ...args];

/**
 * What a caller of exec reads of a result (its duration aside). `lines`: the output's lines as a
 * set, where the order between them is not the engine's to keep (stdout and stderr come apart
 * through the engine, and the environment's order is its own).
 */
async function both(argv: string[], options: ExecOptions = {}, lines = false): Promise<void> {
  const engine = await sandbox.exec(argv, options);
  const through = await channel.exec(argv, options.workdir ?? '/tmp', options);
  const seen = (r: typeof engine): unknown => ({
    exitCode: r.exitCode,
    output: lines ? r.output.toString('utf8').split('\n').sort() : r.output.toString('base64'),
    stderr: r.stderr,
    outputBytes: r.outputBytes,
    omittedBytes: r.omittedBytes,
    timedOut: r.timedOut,
  });
  expect(seen(through)).toEqual(seen(engine));
}

describe('a command through the channel reads as through the engine', () => {
  it('argv with spaces, quotes, newlines and non-ASCII bytes; exit codes; stdout and stderr merged', async () => {
    await both(bash('printf "%s|" "$@"; echo; echo out; exit 7', 'a b', "it's", 'two\nlines', 'ünï', ''));
    await both(bash('echo out; echo err >&2; echo out2; exit 7'), {}, true);
    // Through the channel both go to one file: the order they were written in.
    expect((await channel.exec(bash('echo out; echo err >&2; echo out2'), '/tmp', {})).output.toString()).toBe('out\nerr\nout2\n');
  });

  it('the environment (the container’s and the command’s), the working directory, stdin with NUL bytes', async () => {
    await both(bash('echo "$EXTRA|$PATH|$(pwd)"; od -c | head -3', 'x'), {
      env: { EXTRA: 'one=two three', 'ODD.NAME': 'kept' },
      workdir: '/usr',
      stdin: Buffer.from([0, 1, 2, 10, 255, 0, 65]),
    });
    await both(['env'], { env: { 'ODD.NAME': 'kept' } }, true);
  });

  it('stderr apart, a capped output (head and tail kept, the rest counted), a killed command', async () => {
    await both(bash('echo to-out; echo to-err >&2; exit 3'), { separateStderr: true });
    await both(bash('seq 1 400000'), { outputLimitBytes: 4096 });
    await both(bash('kill -9 $$'));
  });

  it('several megabytes of output byte for byte', async () => {
    const script = 'head -c 6000000 /dev/urandom > /tmp/big && cat /tmp/big && sha256sum /tmp/big >&2';
    const run = await channel.exec(bash(script), '/tmp', { separateStderr: true });
    const { createHash } = await import('node:crypto');
    expect(run.outputBytes).toBe(6_000_000);
    expect(run.stderr.split(' ')[0]).toBe(createHash('sha256').update(run.output).digest('hex'));
  });

  it('a working directory that is not there: a failed exec with the reason, as the engine gives it (Docker 126, Podman 127)', async () => {
    const engine = await sandbox.exec(['true'], { workdir: '/no/such/dir' });
    const through = await channel.exec(['true'], '/no/such/dir', {});
    expect(engine.exitCode).toBeGreaterThanOrEqual(126);
    expect(through.exitCode).toBe(126);
    expect(through.output.toString()).toMatch(/chdir to cwd \(\/no\/such\/dir\): no such file or directory/);
    expect((await channel.exec(['true'], '/', {})).exitCode).toBe(0);
  });
});

describe('files through the channel', () => {
  it('land with their modes, parents made, over a symbolic link rather than through it', async () => {
    await sandbox.exec(bash('mkdir -p /tmp/files && echo target > /tmp/files/target && ln -sf /tmp/files/target /tmp/files/link'));
    await channel.putFiles([
      { path: '/tmp/files/new/deep/a.txt', content: 'alpha\n' },
      { path: '/tmp/files/run.sh', content: Buffer.from('#!/bin/sh\necho ran\n'), mode: 0o755 },
      { path: '/tmp/files/link', content: 'replaced\n' },
    ]);
    const seen = await sandbox.exec(
      bash(
        'cd /tmp/files && cat new/deep/a.txt && ./run.sh && stat -c "%a %U" run.sh new/deep/a.txt && cat target && test ! -L link && cat link',
      ),
    );
    expect(seen.output.toString()).toBe('alpha\nran\n755 root\n644 root\ntarget\nreplaced\n');
  });
});

describe('the gate', () => {
  it('a refused command closes the channel first: its process and folder are gone when that command starts', async () => {
    const box = await provider.create(testSpec({ workdir: '/tmp' }));
    boxes.push(box);
    const look = bash(
      `if [ -e ${DIR} ]; then echo folder; fi; grep -l "swe-env-chan[n]el" /proc/[0-9]*/cmdline 2>/dev/null | grep -v "/proc/$$/" | wc -l`,
    );
    const gated = await ChannelledSandbox.open(box, DIR, (argv) => argv[5] === 'allowed');
    const allowed = [...look.slice(0, 5), 'allowed'];
    const whileOpen = await gated.exec(allowed);
    expect(gated.channelled).toBe(true);
    // The channel itself and the grep's own shell line up with it: seen from inside while open.
    expect(whileOpen.output.toString()).toMatch(/^folder\n[1-9]/);
    const refused = await gated.exec(look);
    expect(gated.channelled).toBe(false);
    expect(refused.output.toString()).toBe('0\n');
    // Closed for good: what the gate allows goes to the engine from now on.
    expect((await gated.exec(allowed)).output.toString()).toBe('0\n');
  });

  it('a command that outlives its limit drops the channel; the next goes to the engine', async () => {
    const box = await provider.create(testSpec({ workdir: '/tmp' }));
    boxes.push(box);
    const gated = await ChannelledSandbox.open(box, DIR, () => true);
    const slow = await gated.exec(bash('sleep 30'), { timeoutMs: 500 });
    expect(slow.timedOut).toBe(true);
    expect(gated.channelled).toBe(false);
    expect((await gated.exec(bash('echo after'))).output.toString()).toBe('after\n');
  });
});
