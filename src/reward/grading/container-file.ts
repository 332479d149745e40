import { extract } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox.js';

/**
 * A file's bytes read through the engine's archive API: nothing runs inside the container, so
 * nothing the code under test replaced (cat, bash, its libraries) is trusted to read it.
 * Undefined when absent, not a regular file, or over the limit.
 */
export async function readContainerFile(sandbox: Sandbox, path: string, limitBytes: number): Promise<Buffer | undefined> {
  const stat = await sandbox.statPath(path);
  if (!stat || !stat.isFile || stat.size > limitBytes) return undefined;
  const tar = await sandbox.readArchive(path, stat.size + 64 * 1024);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let found = false;
    const ex = extract();
    ex.on('entry', (header, stream, next) => {
      // An entry cut short (a file shrunk while the engine archived it) fails the read; without a
      // listener the stream's error would be thrown past every handler and end the server.
      stream.on('error', reject);
      if (!found && header.type === 'file') {
        found = true;
        stream.on('data', (chunk: unknown) => {
          parts.push(chunk as Buffer);
        });
      }
      stream.on('end', next);
      stream.resume();
    });
    ex.on('finish', () => resolve(found ? Buffer.concat(parts) : undefined));
    ex.on('error', reject);
    ex.end(tar);
  });
}
