import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
let t: TestServer;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} is missing: run npm run build (npm test does)`).toBe(true);
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

function shell(taskId: string, input: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('node', [CLI, 'shell', taskId, '--server', t.server.address], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(input);
  });
}

describe('swe-env shell (a researcher stepping an episode by hand)', () => {
  it('runs typed commands, shows the report on :submit, and closes the episode', async () => {
    const { code, out } = await shell('swe-env-demo__intervals-2', 'cd intervals && pwd\necho "exit code next"; false\n:submit\n');
    expect(code).toBe(0);
    expect(out).toContain('merge() does not merge intervals that touch');
    expect(out).toContain('/testbed/intervals');
    expect(out).toContain('[status OK, exit 1]');
    expect(out).toMatch(/resolved: false +reward: 0/);
    expect(out).toMatch(/FAILED +tests\/test_ops\.py::test_merge_touching/);
    expect(out).toContain('[closed after 3 steps, reward 0]');
    await expectNoContainers(t.server.provider);
  });

  it('Ctrl-C stops the running command (everything it started) and keeps the episode, as in a terminal', async () => {
    const child = spawn('node', [CLI, 'shell', 'swe-env-demo__intervals-2', '--server', t.server.address], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('echo started; (sleep 611 &); sleep 611\n');
    // Ctrl-C once the command runs in the episode's container.
    const running = async (): Promise<boolean> => {
      for (const id of await t.server.provider.listContainers()) {
        const top = (await t.server.provider.docker
          .getContainer(id)
          .top()
          .catch(() => ({ Processes: [] }))) as { Processes?: string[][] };
        if ((top.Processes ?? []).some((p) => p.join(' ').includes('sleep 611'))) return true;
      }
      return false;
    };
    for (let i = 0; i < 600 && !(await running()); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    for (let i = 0; i < 600 && !out.includes('interrupted'); i++) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end('echo after-interrupt\n:quit\n');
    expect(await closed).toBe(0);
    expect(out).toContain('^C');
    expect(out).toMatch(/started\n(.*Killed.*\n)?\[swe-env\] The command was interrupted \(Ctrl-C\)/);
    expect(out).toContain('[status OK, exit 130]');
    expect(out).toContain('after-interrupt');
    expect(out).toContain('[closed after 2 steps, reward 0]');
    expect(await running()).toBe(false);
    await expectNoContainers(t.server.provider);
  });

  it(':quit closes the episode without grading', async () => {
    const { out } = await shell('swe-env-demo__intervals-2', 'true\n:quit\n');
    expect(out).toContain('[closed after 1 steps, reward 0]');
    await expectNoContainers(t.server.provider);
  });

  it('sends a heredoc and backslash-continued lines as one step each', async () => {
    const input = "cat > /tmp/note.txt <<'EOF'\nfirst line\n  second line\nEOF\necho one \\\n  two\ncat /tmp/note.txt\n:quit\n";
    const { out } = await shell('swe-env-demo__intervals-2', input);
    expect(out).toContain('one two');
    expect(out).toContain('first line\n  second line');
    expect(out).toContain('[closed after 3 steps, reward 0]');
  });
});
