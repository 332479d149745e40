/**
 * Parsing read-files.sh's output: files as the pristine tree (HEAD) and the working tree hold them,
 * read in the grading container by git (blobs, no filters) and the shell, length-prefixed.
 */
export const READ_FILE_LIMIT = 1024 * 1024;

/** read-files.sh's output: per path, `H <n>\n<bytes>` or `H -|big`, then the same for `W`. */
export function parseReadFiles(output: Buffer, count: number): Array<{ head?: string; work?: string }> {
  const out: Array<{ head?: string; work?: string }> = [];
  let at = 0;
  const next = (tag: 'H' | 'W'): string | undefined => {
    const newline = output.indexOf(0x0a, at);
    if (newline < 0) throw new Error('read-files output ended early');
    const header = output.subarray(at, newline).toString('latin1');
    at = newline + 1;
    const match = new RegExp(`^${tag} (\\d+|-|big|link)$`).exec(header);
    if (!match) throw new Error(`read-files output: unexpected '${header.slice(0, 40)}'`);
    if (!/^\d+$/.test(match[1]!)) return undefined;
    const size = Number(match[1]);
    const content = output.subarray(at, at + size).toString('utf8');
    at += size;
    return content;
  };
  for (let i = 0; i < count; i++) {
    const head = next('H');
    const work = next('W');
    out.push({ ...(head !== undefined ? { head } : {}), ...(work !== undefined ? { work } : {}) });
  }
  return out;
}
