import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRAJECTORY_FORMAT,
  type TrajectoryEnd,
  type TrajectoryHeader,
  type TrajectoryStep,
} from '../../src/trajectories/trajectory-format.js';
import { serveViewer, writeStaticReport } from '../../src/trajectories/viewer/viewer-server.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-env-viewer-'));
let browser: Browser;

function header(id: string, task: string): TrajectoryHeader {
  return {
    type: 'episode',
    format: TRAJECTORY_FORMAT,
    episode_id: id,
    task_id: task,
    dataset: 'demo',
    repo: 'o/r',
    base_commit: 'abc',
    group_id: 'g1',
    seed: 0,
    options: {},
    server_id: 's1',
    started_at: `2026-11-22T10:00:0${id.length % 10}.000Z`,
    prompt: 'Fix the bug in parse().',
    tools: [],
  };
}

function step(index: number, command: string, observation: string): TrajectoryStep {
  return {
    type: 'step',
    index,
    call_id: `c${index}`,
    tool: 'bash',
    arguments: { command },
    assistant: { content: `Running ${command}`, reasoning: 'thinking it over', model: 'm' },
    observation,
    status: 'OK',
    exit_code: 0,
    duration_s: 0.25,
    reward: 0,
    terminated: false,
    truncated: false,
    info: {},
    at: '2026-11-22T10:00:01.000Z',
  };
}

function end(resolved: boolean): TrajectoryEnd {
  return {
    type: 'end',
    reward: resolved ? 1 : 0,
    resolved,
    end_reason: 'submitted',
    steps: 2,
    duration_s: 3.5,
    ended_at: '2026-11-22T10:00:04.000Z',
    report: {
      resolved,
      failToPass: [{ name: 'tests/test_p.py::test_parse', status: resolved ? 'PASSED' : 'FAILED' }],
      passToPass: [],
    } as unknown as TrajectoryEnd['report'],
    model_patch: 'diff --git a/p.py b/p.py\n',
  };
}

function write(id: string, task: string, resolved: boolean, observation: string): void {
  const lines = [
    header(id, task),
    step(0, 'cat p.py', observation),
    { ...step(1, 'submit', ''), tool: 'submit_solution', arguments: {} },
    end(resolved),
  ];
  mkdirSync(join(dir, 's1', '2026-11-22'), { recursive: true });
  writeFileSync(join(dir, 's1', '2026-11-22', `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

beforeAll(async () => {
  write('ep-good', 'demo__p-1', true, 'def parse(): ...');
  // Recorded output is the agent's: markup in it must show as text, never run.
  write('ep-bad', 'demo__p-2', false, '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script></script>');
  const executablePath = execFileSync('bash', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the trajectory viewer in a headless browser', () => {
  it('lists episodes with reward, end and turns, and shows one as a conversation with its observations and test report', async () => {
    const viewer = await serveViewer([dir], '127.0.0.1', 0);
    const page = await browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${viewer.port}/`);
      const rows = page.locator('tr.episode');
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
      const good = page.locator('tr[data-episode="ep-good"]');
      expect(await good.locator('td').allTextContents()).toEqual(['ep-good', 'demo__p-1', '1', 'submitted', '2', '10:00:07']);
      await good.click();
      await page.locator('#outcome').waitFor();
      expect(await page.locator('#detail h2').textContent()).toBe('demo__p-1');
      expect(await page.locator('pre.call').first().textContent()).toBe('cat p.py');
      expect(await page.locator('pre.observation').first().textContent()).toBe('def parse(): ...');
      const outcome = await page.locator('#outcome').textContent();
      expect(outcome).toContain('reward 1 · resolved');
      expect(outcome).toContain('PASSED  tests/test_p.py::test_parse');

      await page.locator('#filter').fill('p-2');
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
      await page.locator('tr[data-episode="ep-bad"]').click();
      // The previous episode's detail is still on the page until the new one loads: wait for its title.
      await expect.poll(() => page.locator('#detail h2').textContent(), { timeout: 30_000 }).toBe('demo__p-2');
      await page.locator('#outcome').waitFor();
      expect(await page.locator('pre.observation').first().textContent()).toContain('<script>document.title="pwned"</script>');
      expect(await page.title()).toBe('swe-env trajectories');
      expect(await page.locator('#outcome').textContent()).toContain('FAILED  tests/test_p.py::test_parse');
    } finally {
      await page.close();
      await viewer.close();
    }
  });

  it('at 1400x900 every column of the list is in view, long ids are cut with their full text as tooltip; #episode=ID opens one episode; a submit step shows no exit code', async () => {
    const long = `grpo-run-7-${'x'.repeat(40)}-s3-a1`;
    write(long, 'django__django-16379', true, 'ok');
    const viewer = await serveViewer([dir], '127.0.0.1', 0);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(`http://127.0.0.1:${viewer.port}/`);
      await expect.poll(() => page.locator('tr.episode').count(), { timeout: 30_000 }).toBe(3);
      const list = (await page.locator('#list').boundingBox())!;
      for (const th of await page.locator('#list th').all()) {
        const box = (await th.boundingBox())!;
        expect(box.x + box.width, `column ${await th.textContent()}`).toBeLessThanOrEqual(list.x + list.width + 1);
      }
      expect(await page.locator(`tr[data-episode="${long}"] td`).first().getAttribute('title')).toBe(long);

      await page.goto(`http://127.0.0.1:${viewer.port}/#episode=ep-bad`);
      await expect.poll(() => page.locator('#detail h2').textContent(), { timeout: 30_000 }).toBe('demo__p-2');
      expect(await page.locator('tr.selected').getAttribute('data-episode')).toBe('ep-bad');
      expect(await page.locator('#permalink').getAttribute('href')).toBe('#episode=ep-bad');
      const headers = await page.locator('.msg.tool h4').allTextContents();
      expect(headers[0]).toContain('exit 0');
      expect(headers[1]).not.toContain('exit');
    } finally {
      await page.close();
      await viewer.close();
    }
  });

  it('writes the same page as one static HTML file', async () => {
    const file = join(dir, 'report.html');
    expect(await writeStaticReport([dir], file)).toBe(3);
    const page = await browser.newPage();
    try {
      await page.goto(`file://${file}`);
      await expect.poll(() => page.locator('tr.episode').count(), { timeout: 30_000 }).toBe(3);
      await page.locator('tr[data-episode="ep-bad"]').click();
      await page.locator('#outcome').waitFor();
      expect(await page.locator('pre.observation').first().textContent()).toContain('</script>');
      expect(await page.title()).toBe('swe-env trajectories');
    } finally {
      await page.close();
    }
  });
});
