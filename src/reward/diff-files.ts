/** The files a unified (git) diff touches, read from its headers. */
export interface DiffFile {
  /** Path in the new tree (the old path for deletions). */
  readonly path: string;
  readonly oldPath: string;
  readonly isNew: boolean;
  readonly isDeleted: boolean;
}

/** Undoes git's C-style quoting of unusual paths ("a/b\\tc"). */
function unquote(path: string): string {
  if (!path.startsWith('"')) return path;
  const inner = path.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = inner[++i] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(inner.slice(i, i + 3), 8));
      i += 2;
    } else {
      bytes.push(
        ({ n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 } as Record<string, number>)[next] ?? next.charCodeAt(0),
      );
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function stripPrefix(path: string): string {
  const p = unquote(path.trim());
  return p.replace(/^[ab]\//, '');
}

/** Splits `a/X b/Y` when paths are unquoted and may hold spaces: the two halves are usually equal. */
function splitHeaderPaths(rest: string): [string, string] {
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    const first = rest.slice(0, end + 1);
    return [stripPrefix(first), stripPrefix(rest.slice(end + 2))];
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3)) {
    return [rest.slice(2, half), rest.slice(half + 3)];
  }
  const at = rest.indexOf(' b/');
  return [stripPrefix(rest.slice(0, at)), stripPrefix(rest.slice(at + 1))];
}

export function diffFiles(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let current: { path: string; oldPath: string; isNew: boolean; isDeleted: boolean } | undefined;
  const flush = (): void => {
    if (current) files.push(Object.freeze({ ...current }));
    current = undefined;
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      const [oldPath, path] = splitHeaderPaths(line.slice('diff --git '.length));
      current = { path, oldPath, isNew: false, isDeleted: false };
    } else if (!current) {
      continue;
    } else if (line.startsWith('new file mode')) {
      current.isNew = true;
    } else if (line.startsWith('deleted file mode')) {
      current.isDeleted = true;
    } else if (line.startsWith('rename from ')) {
      current.oldPath = unquote(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) {
      current.path = unquote(line.slice('rename to '.length));
    } else if (line.startsWith('--- ')) {
      if (line.trim() === '--- /dev/null') current.isNew = true;
    } else if (line.startsWith('+++ ')) {
      if (line.trim() === '+++ /dev/null') current.isDeleted = true;
    }
  }
  flush();
  return files;
}

/**
 * Every path the diff's text names: its `diff --git` headers (both sides of a rename) and its
 * `---`/`+++` lines without their first component, as `git apply` and `patch -p1` may take either
 * (a hunk under a header naming another file changes the file its `---` line names).
 */
export function namedPaths(diff: string): string[] {
  const names = new Set(diffFiles(diff).flatMap((f) => [f.path, f.oldPath]));
  for (const line of diff.split('\n')) {
    if (!line.startsWith('--- ') && !line.startsWith('+++ ')) continue;
    const name = unquote(line.slice(4).split('\t')[0]!.trim());
    if (name === '/dev/null' || name === '') continue;
    names.add(name.includes('/') ? name.slice(name.indexOf('/') + 1) : name);
  }
  return [...names];
}

/** SWE-bench's NON_TEST_EXTS: test_patch paths with these endings are not passed to the runner. */
/** The lines a diff adds to one file (what the task's test patch brings to it), as text. */
export function addedLines(diff: string, path: string): string {
  const file = diff.split(/^(?=diff --git )/m).find((chunk) => diffFiles(chunk)[0]?.path === path);
  if (!file) return '';
  return file
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    .map((line) => line.slice(1))
    .join('\n');
}
