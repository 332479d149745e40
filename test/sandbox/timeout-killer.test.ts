import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellSession } from '../../src/sandbox/shell-session.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

// Family 7: the agent is root in its container and can replace anything there: a `bash` or `kill`
// early on PATH, or /usr/bin/bash and /usr/bin/kill themselves. The timeout killer once ran the
// container's own `bash` and `kill`, so such shims disarmed it and a command ran on past its limit.
const provider = testProvider();
let sandbox: Sandbox;
let shell: ShellSession;
const opts = { timeoutMs: 10_000, outputLimitBytes: 64 * 1024 };

/** The sandbox's processes as the engine reads them from the kernel (nothing inside is asked: process-list.test.ts). */
async function processes(): Promise<string[]> {
  return (await sandbox.processes()).map((p) => `${String(p.pid)} ${p.command}`);
}

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
  shell = await ShellSession.start(sandbox, '/tmp');
});

afterAll(async () => {
  await shell?.close();
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

describe('the command timeout with the sandbox’s own bash and kill replaced', () => {
  it('still kills every process the command started, a daemon included', async () => {
    // Shims that do nothing when asked to kill, and pass everything else (the agent's own shell) on.
    const plant = [
      'cp /usr/bin/bash /usr/bin/bash.real',
      `printf '%s\\n' '#!/usr/bin/bash.real' 'for a in "$@"; do case "$a" in *swe-env-kill*|*kill\\ *|*SIGKILL*) exit 0;; esac; done' 'exec -a bash /usr/bin/bash.real "$@"' > /tmp/shim`,
      "printf '#!/usr/bin/bash.real\\nexit 0\\n' > /tmp/nokill",
      'chmod +x /tmp/shim /tmp/nokill',
      'cp /tmp/shim /usr/local/bin/bash && cp /tmp/nokill /usr/local/bin/kill',
      'cp /tmp/shim /usr/bin/bash.new && mv -f /usr/bin/bash.new /usr/bin/bash',
      'cp /tmp/nokill /usr/bin/kill.new && mv -f /usr/bin/kill.new /usr/bin/kill',
      'echo planted',
    ].join(' && ');
    const planted = await shell.run(plant, opts);
    expect(planted.output).toContain('planted');
    // The shims work: the container's own bash no longer kills anything it is asked to.
    const probe = await sandbox.exec(['bash', '--noprofile', '--norc', '-c', 'echo ran', 'swe-env-kill'], { timeoutMs: 10_000 });
    expect(probe.output.toString()).toBe('');

    const run = await shell.run('(setsid sleep 986 > /dev/null 2>&1 &); sleep 987', { timeoutMs: 2_000, outputLimitBytes: 64 * 1024 });
    expect(run.timedOut).toBe(true);
    const left = await processes();
    expect(left.filter((p) => /sleep 98[67]/.test(p))).toEqual([]);
    // The shell goes on.
    const after = await shell.run('echo next', opts);
    expect(after.output).toBe('next\n');
  });

  it('runs its helper out of reach of the sandbox’s processes: they cannot open its memory', async () => {
    let up!: () => void;
    const started = new Promise<void>((resolve) => (up = resolve));
    let probed = false;
    // The helper lives until the probe has looked (it asks, and is told to stop once it has).
    const helper = sandbox.runBeside(
      [
        '/bin/bash',
        '--noprofile',
        '--norc',
        '-c',
        'echo up; while :; do echo asking; read -r reply; [ "$reply" = stop ] && exit 0; sleep 0.1; done',
        'swe-env-probe-helper',
      ],
      {
        timeoutMs: 30_000,
        answer: (line) => {
          if (line === 'up') up();
          if (line === 'asking') return probed ? 'stop' : 'wait';
          return undefined;
        },
      },
    );
    await started;
    // From inside the sandbox (root, the sandbox's capabilities): find the helper and open its memory.
    // A process that ends while the scan runs (the helper's own `sleep 0.1`) makes its cmdline's
    // redirection fail before `tr` runs: the group's stderr is what is silenced, not tr's alone.
    const probe =
      'h=swe-env-probe; for p in /proc/[0-9]*; do c=$( { tr "\\0" " " < $p/cmdline; } 2>/dev/null); case "$c" in *"$h-helper"*) (exec 3<>$p/mem) 2>/dev/null && echo OPENED || echo REFUSED;; esac; done';
    const seen = await sandbox.exec(['/bin/bash', '--noprofile', '--norc', '-c', probe], { timeoutMs: 30_000 });
    probed = true;
    expect(seen.output.toString()).toBe('REFUSED\n');
    expect(await helper).toEqual({ exitCode: 0, timedOut: false });
  });
});
