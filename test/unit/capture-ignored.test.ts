import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planChange, type RepoChange } from '../../src/reward/capture/change-plan.js';
import { leftOut } from '../../src/reward/capture/ignored-paths.js';
import { CAPTURE_IGNORED_SCRIPT } from '../../src/reward/scripts.js';

/** What the capture leaves out as ignored (test/reward/capture-ignored.test.ts grades it end to end). */
const added = (...rels: string[]): RepoChange[] => rels.map((rel) => ({ rel, kind: 'added' }));
const scratch: string[] = [];

afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('the plan with paths left out', () => {
  const change = added('tools', 'tools/.pytest_cache', 'tools/.pytest_cache/x', 'tools/lib', 'tools/lib/m.py', 'big.bin');

  it('reads a new directory whole when nothing under it is left out', () => {
    const plan = planChange(change);
    expect(plan.roots.map((r) => r.rel)).toEqual(['tools', 'big.bin']);
    expect(plan.pathCount).toBe(6);
  });

  it('reads the children of a new directory with something left out beneath, and never what is left out', () => {
    const plan = planChange(change, new Set(['tools/.pytest_cache', 'tools/.pytest_cache/x', 'big.bin']));
    expect(plan.roots.map((r) => [r.rel, r.descendants])).toEqual([['tools/lib', 1]]);
    expect(plan.pathCount).toBe(3);
  });

  it('leaves out what is under a left-out folder though the check named only the folder', () => {
    const plan = planChange([...added('cache', 'cache/a', 'cache/b'), { rel: 'src/x.py', kind: 'modified' }], new Set(['cache']));
    expect(plan.roots.map((r) => r.rel)).toEqual(['src/x.py']);
  });
});

describe("the ignore check's records", () => {
  it('keeps an ignored path the base commit tracks, and a folder holding a tracked file', () => {
    const records = ['I build/', 'I build/x', 'I build/keep.txt', 'I a.egg-info/PKG-INFO', 'T build/keep.txt', ''].join('\0');
    expect([...leftOut(records)].sort()).toEqual(['a.egg-info/PKG-INFO', 'build/x']);
  });
});

describe('capture-ignored.sh on a real repository', () => {
  it('names the untracked ignored paths by the checkout’s rules, and the tracked files under them', () => {
    const repo = mkdtempSync(join(tmpdir(), 'swe-env-ignored-repo-'));
    scratch.push(repo);
    const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(join(repo, '.gitignore'), '*.egg-info/\nbuild/\n*.so\n');
    mkdirSync(join(repo, 'build'));
    writeFileSync(join(repo, 'build', 'keep.txt'), 'kept\n');
    git('add', '.gitignore');
    git('add', '-f', 'build/keep.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    const base = git('rev-parse', 'HEAD').trim();
    const input = join(repo, '.input');
    mkdirSync(input);
    const candidates = [
      'a.egg-info/',
      'a.egg-info/PKG-INFO',
      'build/',
      'build/keep.txt',
      'build/x',
      'ext/fast.so',
      'ext/fast.py',
      'new\nline.py',
    ];
    writeFileSync(join(input, 'candidates'), candidates.map((c) => `${c}\0`).join(''));
    const out = execFileSync('bash', ['--noprofile', '--norc', '-c', CAPTURE_IGNORED_SCRIPT, 'swe-env-capture-ignored', repo, base, input]);
    const records = out.toString('utf8');
    expect(records.split('\0').filter((r) => r.startsWith('T '))).toEqual(['T build/keep.txt']);
    expect([...leftOut(records)].sort()).toEqual(['a.egg-info', 'a.egg-info/PKG-INFO', 'build/x', 'ext/fast.so']);
  });
});
