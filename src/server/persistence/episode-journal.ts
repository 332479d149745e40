import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { parseRecord, type EpisodeRecord } from './episode-record.js';

/**
 * One JSON file per episode under `<state dir>/<server id>/episodes/`, replaced atomically (write to
 * a temporary file, rename) each time the episode changes. No fsync: the journal is for a server
 * process that dies (deploy, crash, OOM kill), whose writes the page cache keeps; a machine that
 * dies takes the episodes' containers with it, so there is nothing to re-adopt then.
 *
 * A record that cannot be written is deleted instead: a stale record could make a restarted server
 * run a step twice, while a missing one only makes the episode lost (INFRA_ERROR at the client).
 */
export class EpisodeJournal {
  /** Writes per episode, in order: a later state never lands before an earlier one. */
  private readonly chains = new Map<string, Promise<unknown>>();
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
    // Episode ids are checked to letters, digits and `_.:-`; ':' is kept out of file names.
    return join(this.dir, `${encodeURIComponent(id)}.json`);
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
    const text = JSON.stringify(record);
    return this.queue(record.id, async () => {
      try {
        await writeFileAtomic(this.file(record.id), text, { fsync: false, mode: 0o600 });
        return true;
      } catch (error) {
        this.dropped += 1;
        this.logger.error({ err: messageOf(error), episode: record.id }, 'cannot write the episode record; it is dropped and the episode will not survive a restart');
        await unlink(this.file(record.id)).catch(() => undefined);
        return false;
      }
    });
  }

  /** Deletes an episode's record (its tombstone expired, or it was never worth keeping). */
  remove(id: string): Promise<void> {
    return this.queue(id, () => unlink(this.file(id)).catch(() => undefined));
  }

  /** Every record on disk; unreadable ones are reported and deleted. */
  async loadAll(): Promise<EpisodeRecord[]> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.json'));
    const records: EpisodeRecord[] = [];
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        records.push(parseRecord(await readFile(path, 'utf8')));
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
}
