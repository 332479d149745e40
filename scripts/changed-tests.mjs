#!/usr/bin/env node
// The tests a change needs: `node scripts/changed-tests.mjs [--base REV | --files A,B] [--run]`.
//
// A change is what `git diff --name-only REV` lists (default HEAD: the working tree's changes) plus
// untracked files. A TypeScript test is selected when it imports a changed file, directly or
// through any chain of imports (static, `export ... from` and `import()`), or reads it at run time
// (`new URL('./scripts/...', import.meta.url)`: the shell and Python scripts the sandbox and the
// grader ship). Python client files select the client's tests that name their module; docs select
// the link check; what every test depends on (the build, the set-up, the proto, the demo tasks)
// selects everything, which is `npm test`. Prints the selection; `--run` runs it after the
// type check and lint (tier 0). docs/development.md says when to use it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Files whose change can break any test: the full suite is the only honest selection. */
const EVERYTHING = [/^package(-lock)?\.json$/, /^tsconfig.*\.json$/, /^vitest.*\.ts$/, /^test\/duration-sequencer\.ts$/, /^eslint\.config\.js$/, /^proto\//, /^scripts\/(setup|test-all|lib|ensure-docker|build-base-image|setup-python|setup-harbor-python|link-cli)\.sh$/, /^tasks\/demo\//, /^\.ci\//, /^src\/generated\//];

/**
 * What a source file's change is proved by beyond its importers: the engine tests that reach it only
 * through the server or the grader (every such test imports everything, so the import graph alone
 * would select them all). First match wins; a test pattern is a path prefix.
 */
const TOPICS = [
  [/^src\/languages\/python\//, ['test/conformance/', 'test/reward/honest-patterns.test.ts', 'test/reward/unittest-runners.test.ts', 'test/cheats/outcome-rewrite/', 'test/cheats/grading-inputs/']],
  [/^src\/languages\/shared\//, ['test/conformance/', 'test/cheats/forged-results/forged-results.test.ts', 'test/cheats/runner-files/', 'test/reward/language-demo-e2e.test.ts', 'test/reward/honest-patterns.test.ts']],
  [/^src\/(sandbox\/(exec-channel|channelled-sandbox|scripts\/exec-channel)|reward\/grading\/channel-gate)/, ['test/sandbox/exec-channel.test.ts', 'test/unit/channel-gate.test.ts', 'test/reward/exec-channel-unseen.test.ts', 'test/server/evaluate.test.ts', 'test/reward/language-demo-e2e.test.ts', 'test/reward/honest-patterns.test.ts', 'test/reward/eval-script-after-patch-e2e.test.ts', 'test/cheats/forged-results/forged-results.test.ts', 'test/cheats/exec-channel/', 'test/reward/exec-channel-tools.test.ts']],
  [/^src\/reward\/(grading\/hidden-tests-locked|scripts\/(lock-tests|go-exec))/, ['test/unit/hidden-tests-locked.test.ts', 'test/reward/hidden-tests-unreadable.test.ts', 'test/reward/go-tests-as-test-user.test.ts', 'test/reward/language-demo-e2e.test.ts', 'test/reward/mirror-attribution.test.ts', 'test/cheats/answers-from-tests/', 'test/cheats/forged-results/forged-results.test.ts', 'test/cheats/honest-fixes/']],
  [/^src\/(languages\/|reward\/grading\/language-)/, ['test/reward/language-demo-e2e.test.ts', 'test/cheats/forged-results/forged-results.test.ts', 'test/cheats/runner-files/', 'test/cheats/lenient-checks/', 'test/cheats/answers-from-tests/', 'test/cheats/network/', 'test/cheats/masks/language-masks.test.ts', 'test/cheats/honest-fixes/', 'test/conformance/harness-parsers-langs.test.ts', 'test/reward/unreadable-log.test.ts']],
  [/^src\/reward\/(grading\/cargo-lock|scripts\/(compiled-in|lock-cargo|cargo-))/, ['test/reward/compiled-in-scale.test.ts', 'test/cheats/answers-from-tests/', 'test/reward/language-demo-e2e.test.ts', 'test/cheats/forged-results/forged-results.test.ts']],
  [/^src\/reward\/(grading\/|findings|result-recorder|recorder-channel|scripts\/|test-support|pytest-config|verdict|report)/, ['test/reward/honest-patterns.test.ts', 'test/reward/honest-runners.test.ts', 'test/reward/mirror-attribution.test.ts', 'test/reward/unreadable-log.test.ts', 'test/reward/unittest-runners.test.ts', 'test/reward/results-forgery.test.ts', 'test/reward/test-run-errors.test.ts', 'test/reward/pytest-config-hacks.test.ts', 'test/cheats/outcome-rewrite/', 'test/reward/pristine-hook.test.ts', 'test/reward/repository-plugin.test.ts', 'test/cheats/runner-detection/', 'test/cheats/grading-inputs/', 'test/cheats/capture/', 'test/cheats/masks/pytest-', 'test/cheats/forged-results/pytest-forged-results.test.ts', 'test/server/evaluate.test.ts', 'test/cheats/exec-channel/', 'test/unit/apply-patch-chain.test.ts', 'test/reward/patch-headers.test.ts', 'test/reward/witness-', 'test/reward/heap-walk-origin.test.ts']],
  [/^src\/reward\/harness\//, ['test/conformance/']],
  [/^src\/reward\/eval-plan\//, ['test/conformance/', 'test/reward/eval-plan-e2e.test.ts', 'test/reward/eval-install-default.test.ts', 'test/reward/eval-script-after-patch-e2e.test.ts', 'test/reward/datasets-e2e.test.ts']],
  [/^src\/reward\/(capture\/|patch-|diff-files|reverse-diff|tree-changes|read-files|git-hygiene)/, ['test/reward/capture-', 'test/reward/patch-headers.test.ts', 'test/server/evaluate.test.ts']],
  [/^src\/reward\//, ['test/reward/', 'test/server/evaluate.test.ts']],
  [/^src\/sandbox\//, ['test/sandbox/', 'test/server/sandbox-fate.test.ts', 'test/server/disk-quota.test.ts', 'test/server/unstoppable-command.test.ts']],
  [/^src\/server\/persistence\//, ['test/server/crash-recovery.test.ts', 'test/server/forged-journal.test.ts', 'test/server/restart-', 'test/server/image-supply-restart.test.ts', 'test/server/fleet.test.ts']],
  [/^src\/server\/fork\//, ['test/server/fork.test.ts', 'test/server/replay.test.ts']],
  [/^src\/server\//, ['test/server/episode.test.ts', 'test/server/evaluate.test.ts', 'test/server/close-races.test.ts']],
  [/^src\/cli\//, ['test/cli/']],
  [/^src\/tasks\//, ['test/tasks/', 'test/reward/datasets-e2e.test.ts']],
  [/^src\/trajectories\//, ['test/trajectories/']],
  [/^src\/metrics\//, ['test/server/metrics.test.ts']],
  [/^deploy\//, ['test/deploy/']],
];

function args() {
  const out = { base: 'HEAD', run: false, files: undefined };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--base') out.base = argv[++i];
    else if (argv[i] === '--run') out.run = true;
    else if (argv[i] === '--files') out.files = argv[++i].split(',').filter(Boolean);
    else {
      console.error(`unknown argument ${argv[i]}: use [--base REV | --files A,B] [--run]`);
      process.exit(2);
    }
  }
  return out;
}

function git(...a) {
  return execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' });
}

function changedFiles(base) {
  const lines = [...git('diff', '--name-only', base).split('\n'), ...git('ls-files', '--others', '--exclude-standard').split('\n')];
  return [...new Set(lines.filter(Boolean))];
}

function walk(dir, keep) {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated') return [];
    return statSync(join(ROOT, path)).isDirectory() ? walk(path, keep) : keep(path) ? [path] : [];
  });
}

/** A relative import's file: `./x.js` is `./x.ts` in the sources, a folder its index. */
function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(ROOT, dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(ROOT, candidate);
  }
  return undefined;
}

/** The files one TypeScript file depends on: its imports, and the files it reads next to itself. */
function dependencies(file) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(/(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const target = resolveImport(file, m[1] ?? m[2]);
    if (target) deps.add(target);
  }
  for (const m of text.matchAll(/new URL\(\s*[`'"](\.{1,2}\/[^`'"$]*)/g)) {
    // A template (`./scripts/${name}`) reads any file of its folder.
    const target = resolve(ROOT, dirname(file), m[1]);
    const folder = m[1].endsWith('/') || !existsSync(target) || statSync(target).isDirectory() ? target : undefined;
    if (folder) for (const f of walk(relative(ROOT, folder), () => true)) deps.add(f);
    else deps.add(relative(ROOT, target));
  }
  return deps;
}

/** The folder a file's layer is: `src/reward`, `test/cheats`... */
function layerOf(file) {
  return file.split('/').slice(0, 2).join('/');
}

/**
 * Tests that import a changed file through files of its own layer or of the test's own folder (a
 * unit test of a module, a suite of its helpers), and the tests its topic names.
 */
function typescriptSelection(changed) {
  const sources = [...walk('src', (p) => p.endsWith('.ts')), ...walk('test', (p) => p.endsWith('.ts')), ...walk('bench', (p) => p.endsWith('.ts'))];
  const graph = new Map(sources.map((f) => [f, dependencies(f)]));
  const tests = sources.filter((f) => f.endsWith('.test.ts'));
  const selected = new Set(tests.filter((t) => changed.has(t)));
  for (const file of changed) {
    const layer = layerOf(file);
    // Reverse search from the changed file, through its own layer only.
    const importers = new Map();
    for (const [f, deps] of graph) for (const d of deps) importers.set(d, [...(importers.get(d) ?? []), f]);
    const seen = new Set([file]);
    const queue = [file];
    while (queue.length > 0) {
      const current = queue.shift();
      for (const importer of importers.get(current) ?? []) {
        if (seen.has(importer)) continue;
        seen.add(importer);
        if (importer.endsWith('.test.ts')) selected.add(importer);
        else if (layerOf(importer) === layer || (importer.startsWith('test/') && !importer.startsWith('test/helpers/'))) queue.push(importer);
      }
    }
    const topic = TOPICS.find(([re]) => re.test(file));
    for (const prefix of topic?.[1] ?? []) for (const t of tests) if (t.startsWith(prefix)) selected.add(t);
    // A fixture or data file under test/ selects the tests of its folder and those that name it.
    if (file.startsWith('test/') && !file.endsWith('.ts')) {
      const base = file.slice(file.lastIndexOf('/') + 1);
      for (const t of tests) if (dirname(file).startsWith(dirname(t)) || readFileSync(join(ROOT, t), 'utf8').includes(base)) selected.add(t);
    }
  }
  return [...selected].sort();
}

// The OpenEnv server and its tests, run in their own venv (<test venv>/openenv): see openenvSelected.
const OPENENV = /^clients\/python\/(swe_env\/openenv\/|tests_openenv\/|tests\/requirements-openenv\.txt$)/;
const OPENENV_USES = /^clients\/python\/(swe_env\/(__init__|client|sync_client|_loop|errors|results|channel_options)\.py|swe_env\/_proto\/|tests\/conftest\.py$)/;

function openenvSelected(changed) {
  return [...changed].some((f) => OPENENV.test(f) || OPENENV_USES.test(f));
}

function pythonSelection(changed) {
  const client = [...changed].filter((f) => f.startsWith('clients/python/') && !OPENENV.test(f));
  if (client.length === 0) return [];
  const tests = walk('clients/python/tests', (p) => /\/test_\w+\.py$/.test(p));
  // The package's build or requirements: every client test.
  if (client.some((f) => !f.startsWith('clients/python/swe_env/') && !f.startsWith('clients/python/tests/'))) return tests;
  return tests.filter((t) => {
    const text = readFileSync(join(ROOT, t), 'utf8');
    return client.some((f) => {
      if (f === t) return true;
      if (f.startsWith('clients/python/tests/')) return !/\/test_\w+\.py$/.test(f); // conftest, helpers
      const module = f.slice('clients/python/'.length).replace(/(\/__init__)?\.pyi?$/, '').replaceAll('/', '.');
      // The core modules reach every test through the client.
      const core = ['swe_env', 'swe_env.client', 'swe_env.sync_client', 'swe_env._loop', 'swe_env.errors', 'swe_env.channel_options', 'swe_env.results'].includes(module) || module.startsWith('swe_env._proto');
      return core || text.includes(module) || new RegExp(`\\b${module.split('.').at(-1)}\\b`).test(text);
    });
  });
}

function main() {
  const { base, run, files } = args();
  const changed = new Set(files ?? changedFiles(base));
  if (changed.size === 0) {
    console.log(`nothing changed against ${base}`);
    return;
  }
  const everything = [...changed].find((f) => EVERYTHING.some((re) => re.test(f)));
  if (everything) {
    console.log(`${everything} changed: every test depends on it. Run \`npm test\`.`);
    if (run) process.exit(spawnSync('npm', ['test'], { cwd: ROOT, stdio: 'inherit' }).status ?? 1);
    return;
  }
  const vitest = typescriptSelection(changed);
  if ([...changed].some((f) => f.startsWith('docs/') || f.endsWith('.md')) && !vitest.includes('test/unit/docs-links.test.ts')) vitest.push('test/unit/docs-links.test.ts');
  const pytest = pythonSelection(changed);
  const openenv = openenvSelected(changed);
  const lint = [...changed].filter((f) => /\.(ts|js|mjs)$/.test(f) && existsSync(join(ROOT, f)));
  console.log(`changed (${changed.size}): ${[...changed].join(' ')}`);
  console.log(`vitest (${vitest.length}): ${vitest.join(' ') || '-'}`);
  console.log(`python client (${pytest.length}): ${pytest.join(' ') || '-'}`);
  console.log(`python client, OpenEnv: ${openenv ? 'tests_openenv' : '-'}`);
  if (!run) return;
  const step = (label, cmd, a, cwd = ROOT, env = process.env) => {
    console.log(`== ${label}`);
    const status = spawnSync(cmd, a, { cwd, stdio: 'inherit', env }).status;
    if (status !== 0) process.exit(status ?? 1);
  };
  step('typecheck', 'npx', ['tsc', '-p', 'tsconfig.test.json']);
  if (lint.length > 0) step('lint', 'npx', ['eslint', ...lint]);
  if (vitest.length > 0) step('vitest', 'npx', ['vitest', 'run', ...vitest]);
  if (pytest.length > 0) {
    const env = execFileSync('bash', ['-c', '. scripts/lib.sh && python_env_dir'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const cwd = join(ROOT, 'clients/python');
    step('python client: ruff and mypy', 'bash', ['-c', `"${env}/bin/ruff" check && "${env}/bin/python" -m mypy`], cwd);
    step('python client', `${env}/bin/python`, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...pytest.map((t) => relative(cwd, join(ROOT, t)))], cwd, { ...process.env, PYTHONPATH: cwd });
  }
  if (openenv) {
    const env = execFileSync('bash', ['-c', '. scripts/lib.sh && python_env_dir'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const cwd = join(ROOT, 'clients/python');
    if (pytest.length === 0) step('python client: ruff and mypy', 'bash', ['-c', `"${env}/bin/ruff" check && "${env}/bin/python" -m mypy`], cwd);
    step('python client: OpenEnv', `${env}/openenv/bin/python`, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests_openenv'], cwd, { ...process.env, PYTHONPATH: cwd });
  }
}

main();
