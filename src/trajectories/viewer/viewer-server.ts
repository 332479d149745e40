import { createServer, type Server } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { loadTrajectories } from '../export.js';
import type { Trajectory } from '../trajectory-format.js';
import { viewerPage } from './viewer-page.js';

/** One row of the episode list. */
export interface EpisodeRow {
  readonly episode_id: string;
  readonly task_id: string;
  readonly dataset: string;
  readonly group_id: string;
  readonly started_at: string;
  readonly turns: number;
  readonly reward: number | null;
  readonly resolved: boolean | null;
  readonly end_reason: string;
  readonly model: string;
}

function modelOf(t: Trajectory): string {
  const collected = t.header.collect?.['model'];
  return typeof collected === 'string' ? collected : (t.steps.find((s) => s.assistant?.model)?.assistant?.model ?? '');
}

function row(t: Trajectory): EpisodeRow {
  return {
    episode_id: t.header.episode_id,
    task_id: t.header.task_id,
    dataset: t.header.dataset,
    group_id: t.header.group_id,
    started_at: t.header.started_at,
    turns: t.steps.length,
    reward: t.end ? t.end.reward : null,
    resolved: t.end ? t.end.resolved : null,
    end_reason: t.end ? t.end.end_reason : 'running',
    model: modelOf(t),
  };
}

/**
 * A local page over trajectory directories: /api/episodes lists them (read again on each call, so
 * new ones show up), /api/episodes/ID gives one. Loopback by default; nothing is written.
 */
export async function serveViewer(
  dirs: readonly string[],
  host: string,
  port: number,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://viewer');
      const send = (status: number, type: string, body: string): void => {
        res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
        res.end(body);
      };
      try {
        if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', viewerPage(undefined));
        if (url.pathname === '/api/episodes') return send(200, 'application/json', JSON.stringify((await loadTrajectories(dirs)).map(row)));
        const match = /^\/api\/episodes\/(.+)$/.exec(url.pathname);
        if (match) {
          const id = decodeURIComponent(match[1]!);
          const found = (await loadTrajectories(dirs)).find((t) => t.header.episode_id === id);
          return found
            ? send(200, 'application/json', JSON.stringify(found))
            : send(404, 'application/json', JSON.stringify({ error: `no episode ${id}` }));
        }
        return send(404, 'text/plain', 'not found');
      } catch (error) {
        return send(500, 'text/plain', String(error));
      }
    })();
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
  return { port: bound, server, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** One HTML file holding the page and every trajectory (to share, or open without a server). */
export async function writeStaticReport(dirs: readonly string[], file: string): Promise<number> {
  const trajectories = await loadTrajectories(dirs);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(
    file,
    viewerPage({ rows: trajectories.map(row), episodes: Object.fromEntries(trajectories.map((t) => [t.header.episode_id, t])) }),
  );
  return trajectories.length;
}
