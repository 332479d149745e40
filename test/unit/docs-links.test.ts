import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/*.md link to each other, to clients/python/README.md and to source files.
 * Every relative link must name a file or directory that exists, and a `#fragment` into a
 * markdown file must name one of its headings (GitHub's anchors), so a moved or renamed page
 * fails here instead of leaving a dead link.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Link {
  target: string;
  line: number;
}

/** Text with fenced code blocks and inline code blanked out (line numbers kept). */
function withoutCode(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  return lines
    .map((line) => {
      const open = /^\s*(```+|~~~+)/.exec(line);
      if (fence) {
        if (open && open[1]!.startsWith(fence)) fence = undefined;
        return '';
      }
      if (open) {
        fence = open[1];
        return '';
      }
      return line.replace(/(`+)[^`]*?\1/g, '');
    })
    .join('\n');
}

/** Inline links `[text](target)` and reference definitions `[id]: target`, outside code. */
function markdownLinks(markdown: string): Link[] {
  const links: Link[] = [];
  withoutCode(markdown)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1]!, line: i + 1 });
      const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
      if (def) links.push({ target: def[1]!, line: i + 1 });
    });
  return links;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (open && open[1]!.startsWith(fence)) fence = undefined;
      continue;
    }
    if (open) {
      fence = open[1];
      continue;
    }
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const slug = text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http:, https:, mailto:
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const dest = pathPart === '' ? file : pathPart.startsWith('/') ? join(ROOT, pathPart) : resolve(dirname(file), pathPart);
  if (!existsSync(dest)) return `${target}: no such file ${relative(ROOT, dest)}`;
  if (fragment !== undefined && dest.endsWith('.md') && statSync(dest).isFile()) {
    if (!headingAnchors(readFileSync(dest, 'utf8')).has(fragment.toLowerCase()))
      return `${target}: no heading #${fragment} in ${relative(ROOT, dest)}`;
  }
  return undefined;
}

const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  ...(existsSync(DOCS)
    ? readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(DOCS, f))
    : []),
];

describe('markdown link checker', () => {
  it('finds inline and reference links but not those inside code', () => {
    const md = [
      'See [a](docs/a.md) and ![img](pic.png "title") and [web](https://example.com).',
      '`[not](inline-code.md)`',
      '```',
      '[not](fenced.md)',
      '```',
      '[ref]: other.md#part',
    ].join('\n');
    expect(markdownLinks(md).map((l) => l.target)).toEqual(['docs/a.md', 'pic.png', 'https://example.com', 'other.md#part']);
  });

  it('makes anchors the way GitHub does', () => {
    const anchors = headingAnchors('# swe-env\n## verl (0.9.x): the `swe_env` agent loop\n## Tests\n## Tests\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['swe-env', 'verl-09x-the-swe_env-agent-loop', 'tests', 'tests-1']);
  });

  it('reports a missing file and a missing heading, and accepts what exists', () => {
    const readme = join(ROOT, 'README.md');
    expect(brokenLink(readme, 'docs/no-such-page.md')).toMatch(/no such file docs\/no-such-page.md/);
    expect(brokenLink(readme, 'clients/python/README.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink(readme, 'clients/python/README.md#mini-swe-agent')).toBeUndefined();
    expect(brokenLink(readme, 'package.json')).toBeUndefined();
    expect(brokenLink(readme, 'https://example.com/x')).toBeUndefined();
  });
});

describe('README.md and docs/*.md', () => {
  it('have pages to check', () => {
    expect(PAGES.length).toBeGreaterThan(1);
  });

  it.each(PAGES.map((p) => [relative(ROOT, p), p]))('%s: every relative link resolves', (_name, page) => {
    const problems = markdownLinks(readFileSync(page, 'utf8'))
      .map((l) => ({ l, why: brokenLink(page, l.target) }))
      .filter((x) => x.why !== undefined)
      .map((x) => `line ${x.l.line}: ${x.why}`);
    expect(problems).toEqual([]);
  });

  it('every docs page is reachable from README.md', () => {
    const readme = join(ROOT, 'README.md');
    const linked = new Set(markdownLinks(readFileSync(readme, 'utf8')).map((l) => resolve(ROOT, l.target.split('#')[0]!)));
    expect(PAGES.filter((p) => p !== readme && !linked.has(p)).map((p) => relative(ROOT, p))).toEqual([]);
  });

  it('README keeps the two commands CI and users rely on', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm run demo');
    expect(readme).toContain('npm test');
  });
});
