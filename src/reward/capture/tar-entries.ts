import { Readable } from 'node:stream';
import { extract } from 'tar-stream';

/** A file or symlink as git stores it: a blob and a mode. */
export interface TreeEntry {
  /** Relative to the repository. */
  readonly rel: string;
  /** 100644, 100755 or 120000, as git writes them. */
  readonly mode: '100644' | '100755' | '120000';
  /** The file's bytes, or the symlink's target. */
  readonly content: Buffer;
}

export class EntryTooLarge extends Error {
  constructor(
    readonly rel: string,
    readonly size: number,
  ) {
    super(`${rel} is ${size} bytes`);
  }
}

/**
 * The files and symlinks of an engine archive (a tar whose names start with the read path's base
 * name), placed under `parentRel`. Directories are implied by their files; hard links become copies
 * of the file they name; devices, fifos and sockets are left out (git cannot hold them). `keep`
 * decides which paths are part of the change; `allow(size)` is asked before a body is kept, so a
 * caller's byte budget is checked from the header. The archive may be a stream: the bodies of
 * entries not kept are skipped as they pass. A kept hard link whose file was not kept is handed to
 * `unresolved` (its bytes are not in this archive's kept part), when given.
 */
export async function tarEntries(
  archive: Buffer | AsyncIterable<Buffer>,
  parentRel: string,
  keep: (rel: string) => boolean,
  allow: (rel: string, size: number) => void,
  unresolved?: (rel: string) => void,
): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  const byName = new Map<string, TreeEntry>();
  const unpack = extract();
  const relOf = (name: string): string => {
    const clean = name.replace(/^\.?\/+/, '').replace(/\/+$/, '');
    return parentRel === '' ? clean : `${parentRel}/${clean}`;
  };
  let reject_: (error: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    reject_ = reject;
    unpack.on('entry', (header, stream, next) => {
      // A file cut short while the engine archived it (shrunk by a process still running) fails
      // the read here; unlistened, the entry's error would end the whole server.
      stream.on('error', reject);
      const rel = relOf(header.name);
      const finish = (entry: TreeEntry | undefined): void => {
        if (entry) {
          entries.push(entry);
          byName.set(rel, entry);
        }
        next();
      };
      const skip = (entry?: TreeEntry): void => {
        stream.on('end', () => finish(entry));
        stream.resume();
      };
      try {
        if (!keep(rel)) return skip();
        if (header.type === 'symlink') {
          const target = Buffer.from(header.linkname ?? '', 'utf8');
          allow(rel, target.length);
          return skip({ rel, mode: '120000', content: target });
        }
        if (header.type === 'link') {
          const original = byName.get(relOf(header.linkname ?? ''));
          if (!original) {
            unresolved?.(rel);
            return skip();
          }
          allow(rel, original.content.length);
          return skip({ rel, mode: original.mode, content: original.content });
        }
        if (header.type !== 'file' && header.type !== 'contiguous-file') return skip();
        allow(rel, header.size ?? 0);
      } catch (error) {
        stream.resume();
        reject(error instanceof Error ? error : new Error(String(error)));
        unpack.destroy();
        return;
      }
      const parts: Buffer[] = [];
      stream.on('data', (chunk: unknown) => parts.push(chunk as Buffer));
      stream.on('end', () =>
        finish({ rel, mode: ((header.mode ?? 0o644) & 0o100) !== 0 ? '100755' : '100644', content: Buffer.concat(parts) }),
      );
    });
    unpack.on('finish', resolve);
    unpack.on('error', reject);
  });
  const source = Readable.from(Buffer.isBuffer(archive) ? [archive] : archive);
  source.on('error', (error) => {
    unpack.destroy();
    reject_(error);
  });
  source.pipe(unpack);
  try {
    await done;
  } finally {
    // Stopped early (a budget refused an entry): the rest of the archive is not read.
    source.destroy();
  }
  return entries;
}
