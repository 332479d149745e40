import { mkdir, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { parseRecord, type EpisodeRecord } from './episode-record.js';

/** Appended bytes past which an episode's file is rewritten as one snapshot. */
const COMPACT_BYTES = 512 * 1024;

interface OpenFile {
  handle: FileHandle;
  /** Each top-level field of the record as last written (JSON), to append only what changed. */
  written: Map<string, string>;
  bytes: number;
  snapshotBytes: number;
}

/**
 * One append-only JSON-lines file per episode under `<state dir>/<server id>/episodes/`. The first
 * line is the whole record; each later line holds the fields that changed (a step's start: one
 * small line; its outcome: the new outcomes and counters), so a step costs one write on an open
 * file rather than a whole-file rewrite. A file grown past COMPACT_BYTES is replaced (atomically)
 * by one snapshot line. Reading folds the lines; a torn last line is ignored.
 *
 * No fsync: the journal is for a server process that dies (deploy, crash, OOM kill), whose writes
 * the page cache keeps; a machine that dies takes the episodes' containers with it.
 *
 * A record that cannot be written is deleted instead: a stale record could make a restarted server
 * run a step twice, while a missing one only makes the episode lost (INFRA_ERROR at the client).
 * The next write starts the file afresh with a whole snapshot.
 */
export class EpisodeJournal {
  /** Writes per episode, in order: a later state never lands before an earlier one. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly files = new Map<string, OpenFile>();
  /** Records dropped because they could not be written (disk full, permissions). */
  dropped = 0;

  private constructor(
    readonly dir: string,
    private readonly logger: Logger,
  ) {}

  static async open(serverDir: string, logger: Logger): Promise<EpisodeJournal> {
    const dir = join(serverDir, 'episodes');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new EpisodeJournal(dir, logger);
  }

  private file(id: string): string {
    return join(this.dir, `${encodeURIComponent(id)}.jsonl`);
  }

  private queue<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return next;
  }

  /** Writes the episode's record; false when it could not (the record is then removed). */
  save(record: EpisodeRecord): Promise<boolean> {
    const fields = new Map(
      Object.entries(record)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => [key, JSON.stringify(value)]),
    );
    return this.queue(record.id, async () => {
      try {
        const open = this.files.get(record.id);
        if (!open || open.bytes > Math.max(COMPACT_BYTES, 4 * open.snapshotBytes)) {
          await this.snapshot(record.id, fields);
        } else {
          await this.append(open, fields);
        }
        // A retired episode's record (its tombstone) no longer changes: its file is let go.
        if (record.retired) await this.release(record.id);
        return true;
      } catch (error) {
        this.dropped += 1;
        this.logger.error(
          { err: messageOf(error), episode: record.id },
          'cannot write the episode record; it is dropped and the episode will not survive a restart until it is written again',
        );
        await this.release(record.id);
        await unlink(this.file(record.id)).catch(() => undefined);
        return false;
      }
    });
  }

  /** The whole record as one line, replacing the file atomically; then the file is kept open for appends. */
  private async snapshot(id: string, fields: Map<string, string>): Promise<void> {
    await this.release(id);
    const line = `{${[...fields].map(([key, json]) => `${JSON.stringify(key)}:${json}`).join(',')}}\n`;
    await writeFileAtomic(this.file(id), line, { fsync: false, mode: 0o600 });
    const handle = await open(this.file(id), 'a');
    const bytes = Buffer.byteLength(line);
    this.files.set(id, { handle, written: fields, bytes, snapshotBytes: bytes });
  }

  private async append(file: OpenFile, fields: Map<string, string>): Promise<void> {
    const changed: string[] = [];
    for (const [key, json] of fields) if (file.written.get(key) !== json) changed.push(`${JSON.stringify(key)}:${json}`);
    const gone = [...file.written.keys()].filter((key) => !fields.has(key));
    if (changed.length === 0 && gone.length === 0) return;
    const line = `{"$set":{${changed.join(',')}}${gone.length > 0 ? `,"$unset":${JSON.stringify(gone)}` : ''}}\n`;
    await file.handle.write(line);
    file.written = fields;
    file.bytes += Buffer.byteLength(line);
  }

  private async release(id: string): Promise<void> {
    const file = this.files.get(id);
    if (!file) return;
    this.files.delete(id);
    await file.handle.close().catch(() => undefined);
  }

  /** Deletes an episode's record (its tombstone expired, or it was never worth keeping). */
  remove(id: string): Promise<void> {
    return this.queue(id, async () => {
      await this.release(id);
      await unlink(this.file(id)).catch(() => undefined);
    });
  }

  /** Every record on disk, its lines folded; unreadable ones are reported and deleted. */
  async loadAll(): Promise<EpisodeRecord[]> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.jsonl'));
    const records: EpisodeRecord[] = [];
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        records.push(parseRecord(fold(await readFile(path, 'utf8'))));
      } catch (error) {
        this.logger.warn({ file: path, err: messageOf(error) }, 'unreadable episode record removed');
        await unlink(path).catch(() => undefined);
      }
    }
    return records;
  }

  /** Resolves once every write queued so far has landed. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  /** Lets every open file go (shutdown). */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all([...this.files.keys()].map((id) => this.release(id)));
  }
}

/** The record a file's lines make: the first line whole, each later one the fields it changed. */
export function fold(text: string): string {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const state: Record<string, unknown> = {};
  lines.forEach((line, i) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      // Only the last line can be torn (the process died in its write).
      if (i === lines.length - 1) return;
      throw error;
    }
    if (i === 0) {
      Object.assign(state, entry);
      return;
    }
    Object.assign(state, entry['$set'] as Record<string, unknown> | undefined);
    for (const key of (entry['$unset'] as string[] | undefined) ?? []) delete state[key];
  });
  return JSON.stringify(state);
}
