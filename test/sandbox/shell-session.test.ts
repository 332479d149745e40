import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellSession } from '../../src/sandbox/shell-session.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
let sandbox: Sandbox;
let shell: ShellSession;
const opts = { timeoutMs: 10_000, outputLimitBytes: 64 * 1024 };

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
  shell = await ShellSession.start(sandbox, '/tmp');
});

afterAll(async () => {
  await shell?.close();
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

describe('ShellSession against a real container', () => {
  it('runs a command and reports output and exit code', async () => {
    const r = await shell.run('echo hello; echo err >&2; exit_code() { return 3; }; exit_code', opts);
    expect(r.output).toBe('hello\nerr\n');
    expect(r.exitCode).toBe(3);
    expect(r.timedOut).toBe(false);
  });

  it("errors read as from `bash -c`: the command's own line numbers, nothing of the shell's loop; its set-up is not in the environment", async () => {
    const r = await shell.run('no_such_cmd_1\necho two; no_such_cmd_2', opts);
    expect(r.output).toBe('bash: line 1: no_such_cmd_1: command not found\ntwo\nbash: line 2: no_such_cmd_2: command not found\n');
    expect((await shell.run('env | grep -c SWE_ENV_SHELL_SETUP; true', opts)).output).toBe('0\n');
  });

  it('has `python` as SWE-bench images do (not only python3)', async () => {
    expect((await shell.run('python -c "import sys; print(sys.version_info[0])"', opts)).output).toBe('3\n');
  });

  it('an interrupt stops the command and everything it started, keeps its output, answers 130, and the shell goes on', async () => {
    const interrupt = new AbortController();
    const running = shell.run('echo started; (sleep 778 &); sleep 778', { ...opts, timeoutMs: 60_000, interrupt: interrupt.signal });
    // Interrupted once both sleeps run (a fixed wait can come before the command starts on a loaded machine).
    for (let tries = 0; tries < 300; tries++) {
      const seen = await sandbox.exec(['/bin/sh', '-c', 'ps -eo args | grep -c "^sleep 778"'], {
        timeoutMs: 10_000,
        outputLimitBytes: 1024,
      });
      if (seen.output.toString('utf8').trim() === '2') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    interrupt.abort();
    const r = await running;
    expect(r.interrupted).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(130);
    expect(r.output).toContain('started');
    expect((await shell.run('ps -eo args', opts)).output).not.toMatch(/sleep 778/);
    expect((await shell.run('echo after', opts)).output).toBe('after\n');
  });

  it('an interrupt that comes as the command is sent, or in its first ticks, still leaves none of its processes', async () => {
    // Interrupts at once and a few milliseconds in: the kill's start time must not come out later
    // than the command's own processes (ticks of 10 ms, rounding), nor miss what starts after its scan.
    for (const delayMs of [0, 2, 5, 10, 20, 40]) {
      const interrupt = new AbortController();
      const running = shell.run('(sleep 779 &); sleep 779', { ...opts, timeoutMs: 60_000, interrupt: interrupt.signal });
      setTimeout(() => interrupt.abort(), delayMs);
      const r = await running;
      expect(r.exitCode, `interrupt after ${delayMs} ms`).toBe(130);
      expect((await shell.run('ps -eo args', opts)).output, `interrupt after ${delayMs} ms`).not.toMatch(/sleep 779/);
    }
  });

  it('keeps cwd and exported variables between commands', async () => {
    await shell.run('mkdir -p /tmp/a/b && cd /tmp/a/b && export FOO=bar42', opts);
    const r = await shell.run('pwd; echo $FOO', opts);
    expect(r.output).toBe('/tmp/a/b\nbar42\n');
    expect(r.cwd).toBe('/tmp/a/b');
  });

  it('gives commands an empty stdin', async () => {
    // A command waiting on input would run into the time limit instead.
    const r = await shell.run('cat; read x; echo "read=$?"', opts);
    expect(r.timedOut).toBe(false);
    expect(r.output).toBe('read=1\n');
  });

  it('kills a command on timeout with everything it started, keeps partial output, and goes on', async () => {
    // 5 s: both sleeps have started by the time limit, however loaded the machine.
    const r = await shell.run('echo before; (sleep 777 &); sleep 777', { ...opts, timeoutMs: 5000 });
    expect(r.timedOut).toBe(true);
    expect(r.output).toContain('before');
    expect(r.shellRestarted).toBeUndefined();
    const ps = await shell.run('ps -eo args', opts);
    expect(ps.output).not.toMatch(/sleep 777/);
    const next = await shell.run('echo after; pwd', opts);
    expect(next.output).toBe('after\n/tmp/a/b\n');
  });

  it('replaces a shell stuck in a builtin loop and keeps the working directory', async () => {
    const r = await shell.run('while true; do :; done', { ...opts, timeoutMs: 1000 });
    expect(r.timedOut).toBe(true);
    expect(r.shellRestarted).toMatch(/replaced/);
    const next = await shell.run('pwd', opts);
    expect(next.output).toBe('/tmp/a/b\n');
  });

  it('survives `exit` by starting a new shell', async () => {
    const r = await shell.run('echo bye; exit 7', opts);
    expect(r.output).toBe('bye\n');
    expect(r.exitCode).toBe(7);
    expect(r.shellRestarted).toMatch(/exited/);
    expect((await shell.run('echo ok', opts)).output).toBe('ok\n');
  });

  it('deleting the working directory, then `exit`, `set -e` + a failing command, or a timeout: the new shell starts in the task workdir and the episode goes on', async () => {
    const endings = ['exit 3', 'set -e; false', 'while true; do :; done'];
    for (const ending of endings) {
      const gone = await shell.run('mkdir -p /tmp/gone/deeper && cd /tmp/gone/deeper && rm -rf /tmp/gone && echo deleted', opts);
      expect(gone.output).toBe('deleted\n');
      const end = await shell.run(ending, { ...opts, timeoutMs: ending.startsWith('while') ? 1000 : opts.timeoutMs });
      expect(end.shellRestarted).toMatch(/new shell was started in \/tmp\b/);
      const next = await shell.run('pwd; echo alive', opts);
      expect(next.output).toBe('/tmp\nalive\n');
      expect(next.exitCode).toBe(0);
    }
  });

  it('a command that forges the start-time file it could once write still dies at its timeout', async () => {
    const r = await shell.run('mkdir -p /run/swe-env; echo 99999999.99 > /run/swe-env/cmd-start; sleep 300', { ...opts, timeoutMs: 1500 });
    expect(r.timedOut).toBe(true);
    const left = await shell.run("ps -eo args | grep -c '^sleep 300$'", opts);
    expect(left.output.trim()).toBe('0');
  });

  it('the end-marker secret is in no variable while the command runs, so printing a forged end does not end the step', async () => {
    // Everything the shell holds is in `set`: the end nonce is not among it while the command runs.
    const seen = await shell.run("set | grep -a '^__swe_env_nonce=' ; echo done", opts);
    expect(seen.output).toBe('__swe_env_nonce=\ndone\n');
    // What an agent would have forged from `$__swe_env_nonce`: the step goes on past it.
    const forged = await shell.run(
      String.raw`printf '\036SWE_ENV_END:%s:0:/forged\037' "$__swe_env_nonce"; sleep 1; echo after; exit 3`,
      opts,
    );
    expect(forged.output).toContain('after\n');
    expect(forged.exitCode).toBe(3);
    expect(forged.cwd).not.toBe('/forged');
  });

  it("`set -x` traces the agent's commands, never the shell's loop or its end-marker secret", async () => {
    await shell.run('set -x', opts);
    const traced = await shell.run('echo hi', opts);
    expect(traced.output).toContain('+ echo hi\nhi\n');
    expect(traced.output).not.toMatch(/__swe_env|SWE_ENV/);
    const next = await shell.run('true', opts);
    expect(next.output).not.toMatch(/__swe_env|SWE_ENV|printf|read -r/);
    await shell.run('set +x', opts);
    expect((await shell.run('echo plain', opts)).output).toBe('plain\n');
  });

  it('PID 1 cannot be traced or written from inside (it could be made to exit), nor new namespaces made; ordinary work runs', async () => {
    const attach = await shell.run(
      `python3 -c "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); r = libc.ptrace(16, 1, 0, 0); print(r, os.strerror(ctypes.get_errno()))"`,
      opts,
    );
    expect(attach.output.trim()).toBe('-1 Operation not permitted');
    // Nor written through its memory file (round 6's M1 overwrote its code there): /dev/null covers it.
    const mem = await shell.run("stat -c '%F %t:%T' /proc/1/mem /proc/1/task/1/mem", opts);
    expect(mem.output.trim().split('\n')).toEqual(['character special file 1:3', 'character special file 1:3']);
    const userns = await shell.run('unshare -U true; echo "exit=$?"', opts);
    expect(userns.output).toMatch(/exit=[1-9]/);
    const work = await shell.run(
      "python3 -c \"import subprocess, threading; print(subprocess.run(['git', '--version'], capture_output=True).returncode)\"",
      opts,
    );
    expect(work.output.trim()).toBe('0');
  });

  it('caps huge output to head and tail with a count of omitted bytes', async () => {
    const r = await shell.run('head -c 50000000 /dev/zero | tr "\\0" x; echo; echo END', { ...opts, outputLimitBytes: 10_000 });
    expect(r.outputBytes).toBe(50_000_005);
    expect(r.omittedBytes).toBe(50_000_005 - 10_000);
    expect(r.output).toMatch(/\[\.\.\. 49990005 bytes of output omitted \.\.\.\]/);
    expect(r.output.endsWith('END\n')).toBe(true);
  });

  it('contains a fork bomb and recovers', async () => {
    const r = await shell.run('bomb() { bomb | bomb & }; bomb; sleep 30', { ...opts, timeoutMs: 4000 });
    expect(r.timedOut).toBe(true);
    // `ls` needs a fork: it only works once every process of the bomb is gone.
    // Killed processes may be listed until the keeper has reaped them: wait for that (bounded), so a
    // loaded machine does not fail the test, while a surviving bomb still does.
    const next = await shell.run(
      'ls -d /tmp && for i in $(seq 60); do n=$(ps -e --no-headers | wc -l); [ "$n" -lt 10 ] && break; sleep 0.5; done; echo "$n"',
      {
        ...opts,
        timeoutMs: 45_000,
      },
    );
    expect(next.exitCode).toBe(0);
    expect(next.output).toContain('/tmp');
    // The count is the last line: forks retried while the last killed processes were being reaped
    // print bash's `fork: retry` lines before it.
    const lines = next.output.trim().split('\n');
    expect(Number(lines[lines.length - 1]), next.output).toBeLessThan(10);
  }, 60_000);
});

describe('the sandbox survives what a command does inside it', () => {
  it('`kill -9 -1`, `kill 1` and killing every sleep leave the sandbox running; orphans are reaped', async () => {
    const box = await provider.create(testSpec({ workdir: '/tmp', maxLifetimeS: 300 }));
    try {
      const sh = await ShellSession.start(box, '/tmp');
      await sh.run('kill -TERM 1; kill -KILL 1; pkill -9 sleep; kill -9 -1', opts);
      expect(await box.isRunning()).toBe(true);
      const next = await sh.run('echo alive', opts);
      expect(next.output).toBe('alive\n');
      // Every signal bash would die of by default, sent to PID 1 from inside (a SEGV once ended
      // the sandbox: INFRA_ERROR on demand, masking a sample the model was about to fail).
      await sh.run(
        'for s in HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV PIPE ALRM TERM STKFLT XCPU XFSZ VTALRM PROF PWR SYS TSTP TTIN TTOU; do kill -$s 1; done',
        opts,
      );
      expect(await box.isRunning()).toBe(true);
      expect((await sh.run('echo alive', opts)).output).toBe('alive\n');
      // An orphan that exits must not stay a zombie.
      // (The keeper reaps a few times a second: wait for it rather than for a fixed while; one never reaped stays.)
      await sh.run('(sleep 0.2 &) ; sleep 1', opts);
      const zombies = await sh.run(
        "for i in $(seq 300); do [ \"$(ps -eo stat= | grep -c '^Z')\" = 0 ] && break; sleep 0.1; done; ps -eo stat= | grep -c '^Z' || true",
        opts,
      );
      expect(zombies.output.trim()).toBe('0');
      await sh.close();
    } finally {
      await box.remove();
    }
  });
});
