/**
 * The reverse of a git diff, for SWE-smith tasks whose `patch` introduces the bug: its reverse is
 * the gold fix. Text hunks, creations, deletions, renames and mode changes; not binary patches.
 */
export function reverseDiff(diff: string): string {
  const out: string[] = [];
  const lines = diff.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith('@@')) {
      const block: string[] = [];
      i++;
      while (i < lines.length && /^[ +\-\\]/.test(lines[i]!) && !lines[i]!.startsWith('--- ') && !lines[i]!.startsWith('+++ ')) {
        block.push(lines[i]!);
        i++;
      }
      out.push(reverseHunkHeader(line), ...reverseHunkBody(block));
      continue;
    }
    out.push(reverseHeaderLine(line, lines[i + 1]));
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      // Swap the pair: the new "---" names the old "+++" path.
      out.pop();
      out.push(`--- ${swapPrefix(lines[i + 1]!.slice(4))}`, `+++ ${swapPrefix(line.slice(4))}`);
      i += 2;
      continue;
    }
    i++;
  }
  return out.join('\n');
}

function swapPrefix(path: string): string {
  if (path.startsWith('b/')) return `a/${path.slice(2)}`;
  if (path.startsWith('a/')) return `b/${path.slice(2)}`;
  return path;
}

function reverseHeaderLine(line: string, _next: string | undefined): string {
  if (line.startsWith('GIT binary patch')) throw new Error('cannot reverse a binary patch');
  let m = /^diff --git (\S+) (\S+)$/.exec(line);
  if (m) return `diff --git ${swapPrefix(m[2]!)} ${swapPrefix(m[1]!)}`;
  if (line.startsWith('new file mode ')) return line.replace('new file mode ', 'deleted file mode ');
  if (line.startsWith('deleted file mode ')) return line.replace('deleted file mode ', 'new file mode ');
  if (line.startsWith('old mode ')) return line.replace('old mode ', 'new mode ');
  if (line.startsWith('new mode ')) return line.replace('new mode ', 'old mode ');
  if (line.startsWith('rename from ')) return line.replace('rename from ', 'rename to ');
  if (line.startsWith('rename to ')) return line.replace('rename to ', 'rename from ');
  m = /^index ([0-9a-f]+)\.\.([0-9a-f]+)(.*)$/.exec(line);
  if (m) return `index ${m[2]}..${m[1]}${m[3]}`;
  return line;
}

function reverseHunkHeader(line: string): string {
  const m = /^@@ -(\S+) \+(\S+) @@(.*)$/.exec(line);
  if (!m) throw new Error(`malformed hunk header: ${line}`);
  return `@@ -${m[2]} +${m[1]} @@${m[3]}`;
}

/** Flips +/- and, in each run of changes, puts the (new) removals before the (new) additions. */
function reverseHunkBody(block: string[]): string[] {
  const out: string[] = [];
  let minus: string[] = [];
  let plus: string[] = [];
  let last: string[] | undefined;
  const flush = (): void => {
    out.push(...minus, ...plus);
    minus = [];
    plus = [];
    last = undefined;
  };
  for (const line of block) {
    if (line.startsWith('+')) {
      minus.push(`-${line.slice(1)}`);
      last = minus;
    } else if (line.startsWith('-')) {
      plus.push(`+${line.slice(1)}`);
      last = plus;
    } else if (line.startsWith('\\')) {
      (last ?? out).push(line);
    } else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out;
}
