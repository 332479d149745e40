import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

describe('capture-ignored.sh: the change’s own ignore files, and build outputs beside tracked manifests', () => {
  /** A repository with the given tracked files at its base commit; the script's run on candidates. */
  function repoWith(tracked: Record<string, string>): { repo: string; base: string; run: (input: Input) => string } {
    const repo = mkdtempSync(join(tmpdir(), 'swe-env-ignored-repo-'));
    scratch.push(repo);
    const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
    git('init', '-q');
    for (const [path, content] of Object.entries(tracked)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), content);
      git('add', '-f', path);
    }
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    const base = git('rev-parse', 'HEAD').trim();
    const run = (input: Input): string => {
      const dir = mkdtempSync(join(tmpdir(), 'swe-env-ignored-input-'));
      scratch.push(dir);
      writeFileSync(join(dir, 'candidates'), input.candidates.map((c) => `${c}\0`).join(''));
      writeFileSync(join(dir, 'ignore-deleted'), (input.deleted ?? []).map((c) => `${c}\0`).join(''));
      writeFileSync(join(dir, 'outputs'), (input.outputs ?? []).map(([m, o]) => `${m}\t${o}\0`).join(''));
      return execFileSync(
        'bash',
        ['--noprofile', '--norc', '-c', CAPTURE_IGNORED_SCRIPT, 'swe-env-capture-ignored', repo, base, dir, input.pattern ?? '^$'],
        {
          encoding: 'utf8',
        },
      );
    };
    return { repo, base, run };
  }
  interface Input {
    readonly candidates: readonly string[];
    readonly deleted?: readonly string[];
    readonly outputs?: ReadonlyArray<readonly [string, string]>;
    readonly pattern?: string;
  }

  it("leaves out what stands at a build output's name beside each tracked manifest, folder, file or link, and nothing of that name elsewhere", () => {
    const { run } = repoWith({
      'Cargo.toml': '[package]\n',
      'crates/c/Cargo.toml': '[package]\n',
      'java/app[1]/pom.xml': '<project/>\n',
      'src/target/mod.rs': '// a module named target\n',
    });
    const records = run({
      candidates: [
        'target/',
        'target/debug/',
        'target/debug/app',
        'crates/c/target/x',
        'java/app[1]/target',
        'src/target/new.rs',
        'lib/target',
      ],
      outputs: [
        ['Cargo.toml', 'target'],
        ['pom.xml', 'target'],
      ],
      pattern: '(^|/)(Cargo\\.toml|pom\\.xml)$',
    });
    expect([...leftOut(records)].sort()).toEqual(['crates/c/target/x', 'java/app[1]/target', 'target', 'target/debug', 'target/debug/app']);
  });

  it('keeps a build output folder the base commit tracks files in: the project keeps it as its source', () => {
    const { run } = repoWith({ 'composer.json': '{}\n', 'vendor/lib/old.php': '<?php\n' });
    const records = run({
      candidates: ['vendor/lib/new.php', 'vendor/other/', 'vendor/other/x.php'],
      outputs: [['composer.json', 'vendor']],
      pattern: '(^|/)(composer\\.json)$',
    });
    expect([...leftOut(records)]).toEqual([]);
  });

  it("applies the change's own ignore files, in place in the checkout: pytest's .pytest_cache/.gitignore, a line the change added", () => {
    const { repo, run } = repoWith({ '.gitignore': '*.pyc\n', 'src/m.py': 'x = 1\n' });
    mkdirSync(join(repo, '.pytest_cache'));
    writeFileSync(join(repo, '.pytest_cache', '.gitignore'), '# Created by pytest automatically.\n*\n');
    writeFileSync(join(repo, '.gitignore'), '*.pyc\nmybuild/\n');
    const records = run({
      candidates: [
        '.gitignore',
        '.pytest_cache/',
        '.pytest_cache/.gitignore',
        '.pytest_cache/v/x',
        'mybuild/',
        'mybuild/big',
        'src/new.py',
      ],
    });
    expect([...leftOut(records)].sort()).toEqual([
      '.pytest_cache',
      '.pytest_cache/.gitignore',
      '.pytest_cache/v/x',
      'mybuild',
      'mybuild/big',
    ]);
  });

  it('an ignore file the change removed no longer leaves anything out', () => {
    const { run } = repoWith({ '.gitignore': '*.log\n', 'a/.gitignore': 'gen/\n' });
    const records = run({ candidates: ['x.log', 'a/gen/', 'a/gen/out.txt'], deleted: ['a/.gitignore'] });
    expect([...leftOut(records)].sort()).toEqual(['x.log']);
  });
});
