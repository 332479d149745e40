import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { filterAgentPatch, isRunnerControlPath, isTestPath, planSteps, testCommandPaths } from '../../src/reward/patch-filter.js';
import { loadTaskFiles } from '../../src/tasks/loader.js';
import { reverseDiff } from '../../src/tasks/reverse-diff.js';
import { decideVerdict } from '../../src/reward/verdict.js';
import { djangoModule, evalPlan } from '../../src/reward/eval-plan/plan.js';
import { testCommand } from '../../src/reward/grader.js';
import type { Task } from '../../src/tasks/task.js';

const run = promisify(execFile);

const chunk = (path: string, body = '@@ -1 +1 @@\n-a\n+b\n') => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${body}`;

describe('filterAgentPatch', () => {
  it("drops test files, conftest.py, pytest.ini/tox.ini; setup.cfg / pyproject.toml are left to the sweep's parsers", () => {
    const diff = [
      chunk('src/pkg/mod.py'),
      chunk('tests/test_mod.py'),
      chunk('pkg/conftest.py'),
      chunk('pytest.ini'),
      chunk('setup.cfg', '@@ -1 +1,2 @@\n [tool:pytest]\n+addopts = -p evil\n'),
      chunk('pyproject.toml', '@@ -1 +1 @@\n-version = "1"\n+version = "2"\n'),
      chunk('src/test_helpers_not_a_test.txt'),
    ].join('');
    const { patch, dropped } = filterAgentPatch(Buffer.from(diff));
    expect(dropped).toEqual(['tests/test_mod.py (test file)', 'pkg/conftest.py (test file)', 'pytest.ini (test file)']);
    const kept = patch.toString();
    expect(kept).toContain('src/pkg/mod.py');
    expect(kept).toContain('pyproject.toml');
    expect(kept).toContain('src/test_helpers_not_a_test.txt');
    expect(kept).not.toContain('tests/test_mod.py');
  });

  it('drops edits to the files the test command runs (sympy bin/test, Django runtests.py)', () => {
    expect(testCommandPaths("PYTHONWARNINGS='ignore::UserWarning' bin/test -C --verbose sympy/core/tests/test_basic.py")).toEqual([
      'bin/test',
      'sympy/core/tests/test_basic.py',
    ]);
    expect(testCommandPaths('./tests/runtests.py --verbosity 2 admin_views.tests')).toEqual(['tests/runtests.py']);
    const { dropped } = filterAgentPatch(Buffer.from(chunk('bin/test') + chunk('sympy/core/basic.py')), { protectedPaths: ['bin/test'] });
    expect(dropped).toEqual(['bin/test (run by the test command)']);
  });

  it("never drops a file the task's own fix changes, even under a test-like path", () => {
    const diff = Buffer.from(chunk('django/test/client.py') + chunk('tests/test_client.py'));
    const { dropped, patch } = filterAgentPatch(diff, { allowedPaths: ['django/test/client.py'] });
    expect(dropped).toEqual(['tests/test_client.py (test file)']);
    expect(patch.toString()).toContain('django/test/client.py');
  });

  it('keeps non-UTF-8 bytes of kept files intact', () => {
    const raw = Buffer.concat([Buffer.from(chunk('a.py', '@@ -1 +1 @@\n-')), Buffer.from([0xff, 0xfe]), Buffer.from('\n+b\n')]);
    expect(filterAgentPatch(raw).patch.equals(raw)).toBe(true);
  });

  it('classifies what other runners read or run around their tests (round-4 exploits G2, R2, R3), and nothing of the code under repair', () => {
    for (const p of [
      'semver_test.go',
      'pkg/main_test.go',
      'pkg/testdata/in.txt',
      '.cargo/config.toml',
      'crates/a/.cargo/config',
      'build.rs',
      'crates/a/build.rs',
      'rust-toolchain.toml',
      'jest.config.js',
      'vitest.config.mts',
      '.mocharc.yml',
      'karma.conf.js',
      'jasmine.json',
      'spec/support/jasmine.json',
      // The installed runners: a package jasmine requires before the installed jasmine-core.
      'node_modules/jasmine/node_modules/jasmine-core/index.js',
      'node_modules/.bin/jasmine',
      'node_modules',
      'packages/a/node_modules/x/index.js',
      '.rspec',
      'spec/spec_helper.rb',
      'lib/a_spec.rb',
      'phpunit.xml.dist',
    ]) {
      expect(isRunnerControlPath(p), p).toBe(true);
    }
    for (const p of [
      'semver.go',
      'src/lib.rs',
      'src/build.rs.in',
      'src/build.rs',
      'crates/a/src/util/build.rs',
      'cargo/config.toml',
      'package.json',
      'lib/spec.rb',
      'docs/spec/a.md',
      'src/jest.js',
      'src/node_modules_helper.js',
      'pom.xml',
      'go.mod',
    ]) {
      expect(isRunnerControlPath(p), p).toBe(false);
    }
    const diff = Buffer.from(
      ['main_test.go', 'semver.go', '.cargo/config.toml', 'build.rs']
        .map((f) => `diff --git a/${f} b/${f}\nnew file mode 100644\n--- /dev/null\n+++ b/${f}\n@@ -0,0 +1 @@\n+x\n`)
        .join(''),
    );
    const filtered = filterAgentPatch(diff);
    expect(filtered.dropped).toEqual([
      'main_test.go (read or run by the test runner)',
      '.cargo/config.toml (read or run by the test runner)',
      'build.rs (read or run by the test runner)',
    ]);
    expect(filtered.patch.toString()).toContain('b/semver.go');
    expect(filterAgentPatch(diff, { allowedPaths: ['build.rs'] }).dropped).not.toContain('build.rs (read or run by the test runner)');
  });

  it("protects the build definitions the test command's tools read (round-4 C1 Makefile, R4 Cargo.toml's build script), and symlinks standing for protected folders (R5)", () => {
    const cases: Array<[string, string, boolean]> = [
      ['make test', 'Makefile', true],
      ['make -C build check', 'src/rules.mk', true],
      ['cd build && ctest --output-on-failure', 'CMakeLists.txt', true],
      ['cargo test --no-fail-fast', 'Cargo.toml', true],
      ['cargo test --no-fail-fast', 'crates/a/Cargo.toml', true],
      ['go test -v ./...', 'go.mod', true],
      ['npx jest --ci', 'package.json', true],
      ['npm test', '.npmrc', true],
      ['yarn test', '.yarnrc.yml', true],
      ['yarn test', '.yarnrc', true],
      ['./mvnw -q test', 'module/pom.xml', true],
      ['bundle exec rspec', 'Gemfile', true],
      ['vendor/bin/phpunit --testdox', 'composer.json', true],
      ['pytest -rA tests/test_a.py', 'Makefile', false],
      ['pytest -rA tests/test_a.py', 'package.json', false],
      ['go test ./...', 'Cargo.toml', false],
      ['cargo test', 'src/lib.rs', false],
    ];
    for (const [command, path, expected] of cases) expect(isRunnerControlPath(path, command), `${command} / ${path}`).toBe(expected);
    expect(isRunnerControlPath('.cargo')).toBe(true); // a symlink to a folder holding config.toml
    expect(isRunnerControlPath('testdata')).toBe(true);
    expect(isRunnerControlPath('tests')).toBe(true);
    expect(isRunnerControlPath('pkg/tests')).toBe(true);
  });

  it("protects package.json where a step after the change installs from it (marked's re-sync runs npm install, and npm runs its lifecycle scripts offline)", async () => {
    const rows = (await readFile(join(process.cwd(), 'tasks', 'corpus', 'tasks.jsonl'), 'utf8')).split('\n').filter(Boolean);
    const row = JSON.parse(rows.find((r) => r.includes('"markedjs__marked-2811"'))!) as Record<string, string>;
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-steps-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'tasks.jsonl'), JSON.stringify(row) + '\n');
    const [task] = await loadTaskFiles([join(dir, 'tasks.jsonl')], {}, (p) => {
      throw new Error(`${p.where} ${p.field}: ${p.message}`);
    });
    const plan = evalPlan(task!);
    const steps = planSteps(plan);
    expect(steps).toMatch(/npm install/);
    const diff = Buffer.from(chunk('package.json') + chunk('src/rules.js'));
    expect(filterAgentPatch(diff, { testCommand: plan.testCommand }).dropped).toEqual([]);
    expect(filterAgentPatch(diff, { testCommand: plan.testCommand, steps }).dropped).toEqual([
      'package.json (read or run by the test runner)',
    ]);
    expect(isRunnerControlPath('package.json', 'pytest -rA', 'pip install -e .')).toBe(false);
    expect(isRunnerControlPath('src/package.json.txt', plan.testCommand, steps)).toBe(false);
    expect(isRunnerControlPath('.npmrc', plan.testCommand, steps)).toBe(true);
    expect(isRunnerControlPath('.npmrc', plan.testCommand)).toBe(false);
    // Why: npm install with nothing to fetch and no registry to reach still runs the root postinstall.
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'x', version: '1.0.0', scripts: { postinstall: "node -e \"require('fs').writeFileSync('ran', '1')\"" } }),
    );
    await run('npm', ['install', '--silent', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: join(dir, 'cache') },
    });
    expect(await readFile(join(dir, 'ran'), 'utf8')).toBe('1');
  }, 60_000);

  it('classifies test paths as SWE-bench splits patch and test_patch', () => {
    for (const p of ['tests/a.py', 'pkg/testing/x.py', 'test_a.py', 'pkg/a_test.py', 'pkg/tests.py', 'e2e/run.py'])
      expect(isTestPath(p)).toBe(true);
    for (const p of ['src/latest.py', 'pkg/contest.py', 'pytest_plugin.py', 'src/_pytest/main.py']) expect(isTestPath(p)).toBe(false);
  });
});

describe('reverseDiff', () => {
  it('undoes a real git diff (modify, create, delete, no newline at end)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-rev-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const g = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir });
    await g('init', '-q');
    await writeFile(join(dir, 'a.py'), 'one\ntwo\nthree\n');
    await writeFile(join(dir, 'gone.py'), 'bye\n');
    await writeFile(join(dir, 'nonl.txt'), 'x');
    await g('add', '-A');
    await g('commit', '-qm', 'a');
    await writeFile(join(dir, 'a.py'), 'one\n2\nthree\nfour\n');
    await writeFile(join(dir, 'new.py'), 'hello\n');
    await writeFile(join(dir, 'nonl.txt'), 'y');
    await run('rm', [join(dir, 'gone.py')]);
    await g('add', '-A');
    const forward = (await g('diff', '--cached')).stdout;
    await g('commit', '-qm', 'b');
    await writeFile(join(dir, 'rev.patch'), reverseDiff(forward));
    await g('apply', 'rev.patch');
    await run('rm', [join(dir, 'rev.patch')]);
    expect(await readFile(join(dir, 'a.py'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(await readFile(join(dir, 'gone.py'), 'utf8')).toBe('bye\n');
    expect(await readFile(join(dir, 'nonl.txt'), 'utf8')).toBe('x');
    await expect(readFile(join(dir, 'new.py'))).rejects.toThrow();
  });
});

describe('repo specs and test commands', () => {
  const task = (over: Partial<Task>): Task => ({
    id: 'x',
    dataset: 'd',
    repo: 'r/r',
    baseCommit: 'b',
    version: '1',
    problemStatement: '',
    hintsText: '',
    createdAt: '',
    environmentSetupCommit: '',
    goldPatch: '',
    testPatch: 'diff --git a/tests/forms/test_a.py b/tests/forms/test_a.py\n',
    failToPass: ['t'],
    passToPass: [],
    image: 'i',
    workdir: '/testbed',
    ...over,
  });

  it('uses the harness commands per repository and version', () => {
    expect(testCommand(task({ repo: 'django/django', version: '3.0' }))).toBe(
      './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 forms.test_a',
    );
    expect(testCommand(task({ repo: 'django/django', version: '1.9' }))).toBe('./tests/runtests.py --verbosity 2 forms.test_a');
    expect(testCommand(task({ repo: 'getmoto/moto', version: '4.1' }))).toBe('pytest -n0 -rA tests/forms/test_a.py');
    expect(testCommand(task({ repo: 'astropy/astropy', version: '1.3' }))).toBe(
      'pytest -rA -vv -o console_output_style=classic --tb=no tests/forms/test_a.py',
    );
    expect(testCommand(task({ repo: 'astropy/astropy', version: '5.0' }))).toBe('pytest -rA tests/forms/test_a.py');
    const mypyPatch = 'diff --git a/test-data/unit/check-x.test b/test-data/unit/check-x.test\n+[case testFoo]\n+[case testBar]\n';
    expect(testCommand(task({ repo: 'python/mypy', version: '1.5', testPatch: mypyPatch }))).toBe('pytest -n0 -rA -k "testFoo or testBar"');
    expect(testCommand(task({ testCmd: 'make test' }))).toBe('make test');
    expect(testCommand(task({ testPatch: '', failToPass: ['tests/a.py::t1', 'tests/b.py::t2'], passToPass: ['tests/a.py::t3'] }))).toBe(
      'pytest -rA tests/a.py tests/b.py',
    );
    expect(evalPlan(task({ repo: 'DJANGO/Django', version: '2.2' })).harnessParser).toBe('parse_log_django');
    expect(evalPlan(task({ repo: 'django/django', version: '9.9' })).notes.join()).toMatch(/no version "9.9"/);
    expect(djangoModule('tests/admin_views/tests.py')).toBe('admin_views.tests');
  });

  it('matches dataset names SWE-bench cut at the first space', () => {
    const results = new Map([
      ['t.py::test_p[a b]', 'PASSED' as const],
      ['t.py::test_p[a c]', 'PASSED' as const],
    ]);
    expect(decideVerdict({ results, failToPass: ['t.py::test_p[a'], passToPass: [], exitCode: 0 }).resolved).toBe(true);
    results.set('t.py::test_p[a d]', 'FAILED' as never);
    expect(decideVerdict({ results, failToPass: ['t.py::test_p[a'], passToPass: [], exitCode: 1 }).resolved).toBe(false);
  });
});
