/**
 * What a new user meets in the first hour, through the real CLI: `swe-env` on PATH with a version,
 * a demo set-up that installs nothing it does not need, `--help` with defaults, readable logs on a
 * terminal, and errors that say what to do (no server, a busy port, a typo, a missing file).
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { killCliServers, serveCli, stopCli } from '../helpers/cli-server.js';

const run = promisify(execFile);
const ROOT = packageRoot();
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

afterAll(() => killCliServers());

async function cli(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { env: { ...process.env, ...options.env }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A loopback port something already listens on. */
async function busyPort(): Promise<{ port: number; close: () => void }> {
  const server = createServer();
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return { port, close: () => server.close() };
}

describe('the first hour', () => {
  it('the set-up put `swe-env` on PATH, and it says its version', async () => {
    const { stdout } = await run('bash', ['-c', 'command -v swe-env && swe-env --version']);
    const [path, version] = stdout.trim().split('\n');
    expect(path).toMatch(/swe-env$/);
    expect(version).toBe(VERSION);
  });

  it('the demo set-up installs neither the Python test stack nor a browser, and builds nothing unchanged', async () => {
    const { stderr } = await run('bash', [join(ROOT, 'scripts', 'setup.sh'), '--demo'], { cwd: ROOT, timeout: 600_000 });
    expect(stderr).not.toMatch(/python test environment|chromium/);
    expect(stderr).not.toMatch(/\bbuilding\b/);
    expect(stderr).toMatch(/demo task images ready|base image/);
  });

  it('`serve --help` shows every default', async () => {
    const { stdout } = await cli(['serve', '--help']);
    // Each option's text runs from its name to the next option (commander wraps long lines).
    const entries = stdout.split(/\n(?=\s+--)/);
    for (const option of [
      '--max-episodes',
      '--command-timeout',
      '--idle-timeout',
      '--memory-mb',
      '--test-timeout',
      '--adoption-grace',
      '--port',
      '--server-id',
    ]) {
      const entry = entries.find((e) => e.trimStart().startsWith(`${option} `));
      expect(entry, option).toMatch(/default/);
    }
  });

  it('no server: says how to start one; a typo in a command gets the nearest', async () => {
    const free = await busyPort();
    free.close();
    const health = await cli(['health', '--server', `127.0.0.1:${free.port}`, '--timeout', '2']);
    expect(health.code).not.toBe(0);
    expect(health.stderr).toMatch(
      new RegExp(`no swe-env server answers at 127\\.0\\.0\\.1:${free.port}: start one with \`swe-env serve\``),
    );
    expect(health.stderr).not.toMatch(/Resolution note|UNAVAILABLE/);
    const typo = await cli(['serv']);
    expect(typo.stderr).toMatch(/Did you mean serve\?/);
  });

  it('a busy port says --port (serve and demo-model), a missing file names its flag, an unknown task offers the nearest ids', async () => {
    const busy = await busyPort();
    try {
      const serve = await cli([
        'serve',
        '--port',
        String(busy.port),
        '--server-id',
        `first-hour-${process.pid}`,
        '--no-state',
        '--no-trajectories',
      ]);
      expect(serve.code).not.toBe(0);
      expect(serve.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${busy.port} is in use .*--port`));
      expect(serve.stderr).not.toMatch(/No address added/);
      const model = await cli(['demo-model', '--port', String(busy.port)]);
      expect(model.code).not.toBe(0);
      expect(model.stderr).toMatch(/is in use: choose another port with --port/);
      expect(model.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      busy.close();
    }
    expect((await cli(['tasks', '--tasks', '/nonexistent/tasks.jsonl'])).stderr).toMatch(
      /task file \/nonexistent\/tasks\.jsonl does not exist \(given with --tasks\)/,
    );
    expect((await cli(['health', '--token-file', '/nonexistent/token'])).stderr).toMatch(/--token-file \/nonexistent\/token: no such file/);
    expect(
      (
        await cli([
          'serve',
          '--auth-token-file',
          '/nonexistent/token',
          '--port',
          '0',
          '--server-id',
          `first-hour-t-${process.pid}`,
          '--no-state',
          '--no-trajectories',
        ])
      ).stderr,
    ).toMatch(/--auth-token-file \/nonexistent\/token: no such file/);
    expect((await cli(['plan', 'swe-env-demo__textkit-22'])).stderr).toMatch(
      /no task swe-env-demo__textkit-22 .*did you mean swe-env-demo__textkit-2/,
    );

    const { child, address } = await serveCli(['--server-id', `first-hour-s-${process.pid}`, '--no-state', '--no-trajectories']);
    try {
      const shell = await cli(['shell', 'swe-env-demo__textkit-22', '--server', address]);
      expect(shell.code).not.toBe(0);
      expect(shell.stderr).toMatch(/unknown task_id 'swe-env-demo__textkit-22' \(did you mean swe-env-demo__textkit-2/);
      expect(shell.stderr).not.toMatch(/NOT_FOUND|Reset/);
    } finally {
      await stopCli(child, 'SIGTERM');
    }
  });

  it('logs are readable lines on a terminal and JSON when piped', async () => {
    const serverId = `first-hour-l-${process.pid}`;
    const args = `serve --port 0 --server-id ${serverId} --no-state --no-trajectories --log-level info`;
    const onTty = spawn('script', ['-qec', `node ${CLI} ${args}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let tty = '';
    onTty.stdout.on('data', (d: Buffer) => (tty += d.toString()));
    for (let i = 0; i < 300 && !tty.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 100));
    // `script` may not pass the signal on: stop the server itself by its unique id.
    await run('pkill', ['-TERM', '-f', '--', `--server-id ${serverId} `]).catch(() => undefined);
    onTty.kill('SIGTERM');
    await new Promise((r) => onTty.once('exit', r));
    expect(tty).toMatch(/INFO.*swe-env serving/);
    expect(tty).not.toMatch(/\{"level"/);

    const piped = spawn('node', [CLI, ...args.split(' ')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    piped.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let i = 0; i < 300 && !stderr.includes('swe-env serving'); i++) await new Promise((r) => setTimeout(r, 100));
    piped.kill('SIGTERM');
    await new Promise((r) => piped.once('exit', r));
    const serving = stderr.split('\n').find((l) => l.includes('swe-env serving'));
    expect(JSON.parse(serving ?? '{}')).toMatchObject({ level: 30, msg: 'swe-env serving' });
  });
});
