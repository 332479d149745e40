#!/usr/bin/env node
// Builds and grades the real-task corpus, one image build or grading at a time, and writes a report.
//
//   node scripts/corpus/run.mjs [--tasks tasks/corpus/tasks.jsonl] [--repos DIR] [--out DIR]
//        [--instance ID]... [--no-build] [--keep-images] [--swebench-python PY] [--test-timeout S]
//        [--load-runs N]
//   node scripts/corpus/run.mjs --merge DIR [--merge DIR]... --out DIR   (one report from several runs)
//
// Per row: `swe-env images build` (on the base variant its repository asks for in
// tasks/corpus/selection.json, with --network-install when the row has an install step), then the
// gold patch and the empty patch graded with swe-env's own Grader (as `swe-env validate` does), both
// test logs kept, and each listed test's status compared with swebench 5.x's parser on the same log
// (scripts/corpus/swebench_compare.py, run with --swebench-python; skipped without one).
// --load-runs N grades the gold patch N more times while busy processes (two per core) compete for
// the CPU: a row whose gold verdict depends on timing (a test racing a timer, a fixed sleep) scores 0
// there some of the time, and is `timing-flaky` rather than sound. Such a row gives a trainer a
// wrong reward under load whatever the grader does, and must stay out of the CI sample.
// Writes OUT/report.json, OUT/report.md and OUT/logs/ID/{gold,empty}.{log,json}; exit code 1 when a
// row is not sound (gold 1, empty 0, no integrity flag, no infrastructure error).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => import(join(root, 'dist/src', p));
const { loadTaskFiles } = await dist('tasks/loader.js');
const { Grader } = await dist('reward/grader.js');
const { Semaphore } = await dist('common/semaphore.js');
const { createLogger } = await dist('common/logger.js');
const { DockerSandboxProvider } = await dist('sandbox/docker-sandbox.js');
const { compileConfig } = await dist('server/config.js');
const { DEBIAN_SUITES } = await dist('tasks/debian-suites.js');

const argv = process.argv.slice(2);
const many = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const one = (name, dflt) => many(name).at(-1) ?? dflt;
const flag = (name) => argv.includes(name);
const tasksFile = resolve(one('--tasks', join(root, 'tasks/corpus/tasks.jsonl')));
const repos = resolve(one('--repos', '/tmp/corpus-repos'));
const out = resolve(one('--out', '/tmp/swe-env-corpus-report'));
const swebenchPython = one('--swebench-python', process.env.SWEBENCH_PYTHON);
const testTimeoutS = Number(one('--test-timeout', '900'));
const loadRuns = Number(one('--load-runs', '0'));
const selection = JSON.parse(readFileSync(join(root, 'tasks/corpus/selection.json'), 'utf8'));
const cli = join(root, 'dist/src/cli/main.js');

const rawRows = new Map(readFileSync(tasksFile, 'utf8').split('\n').filter(Boolean).map((l) => { const r = JSON.parse(l); return [r.instance_id, r]; }));
let tasks = await loadTaskFiles([tasksFile], {}, (p) => process.stderr.write(`skipped: ${p.where} ${p.field}: ${p.message}\n`));
const wanted = many('--instance');
if (wanted.length) tasks = tasks.filter((t) => wanted.some((w) => (w.endsWith('*') ? t.id.startsWith(w.slice(0, -1)) : t.id === w)));
mkdirSync(join(out, 'logs'), { recursive: true });

const languageOf = (parser) => ({ parse_log_redis: 'C', parse_log_ruby_unit: 'Ruby', parse_log_rspec_transformed_json: 'Ruby', parse_log_jest: 'JavaScript', parse_log_tap: 'JavaScript', parse_log_karma: 'JavaScript', parse_log_vitest: 'JavaScript', parse_log_marked: 'JavaScript', parse_log_chart_js: 'JavaScript', parse_log_p5js: 'JavaScript', parse_log_react_pdf: 'JavaScript', parse_log_jekyll: 'Ruby', parse_log_cargo: 'Rust', parse_log_gotest: 'Go', parse_log_phpunit: 'PHP', parse_log_maven: 'Java' })[parser] ?? 'Python';

function sh(cmd, args) {
  return new Promise((ok) => {
    const child = spawn('nice', ['-n', '10', cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('close', (code) => ok({ code, text }));
  });
}

const bases = new Map();
/** The base image of a Debian release other than the default (the harness's Python: selection's `suite`). */
async function suiteBase(suite) {
  if (!suite) return 'swe-env/base:latest';
  const key = `suite ${suite}`;
  if (!bases.has(key)) {
    const r = await sh('node', [cli, 'images', 'base', '--suite', suite]);
    const tag = /swe-env\/base:[\w.-]+/.exec(r.text)?.[0];
    if (r.code !== 0 || !tag) throw new Error(`images base --suite ${suite} failed:\n${r.text}`);
    bases.set(key, tag);
  }
  return bases.get(key);
}

/** A folder of wheels from PyPI for the variant's python (selection's `wheels`: requirement strings), or none. */
async function wheelsFor(repo, python) {
  const wanted = selection.repos[repo]?.wheels ?? [];
  if (wanted.length === 0) return undefined;
  const dir = join(out, 'wheels', repo.replace('/', '+'));
  mkdirSync(dir, { recursive: true });
  const r = await sh('python3', ['-m', 'pip', 'download', '-q', '--no-deps', '--only-binary=:all:', '--python-version', python, '--dest', dir, ...wanted]);
  if (r.code !== 0) throw new Error(`pip download ${wanted.join(' ')} failed:\n${r.text}`);
  return dir;
}

async function baseFor(repo) {
  const packages = selection.repos[repo]?.packages ?? selection.defaultPackages;
  const suite = selection.repos[repo]?.suite;
  const base = await suiteBase(suite);
  const wheels = await wheelsFor(repo, DEBIAN_SUITES[suite ?? 'bookworm']);
  if (!packages && !wheels) return base;
  const key = `${base} ${packages} ${wheels ?? ''}`;
  if (!bases.has(key)) {
    const r = await sh('node', [cli, 'images', 'base', '--packages', packages ?? '', '--base', base, ...(wheels ? ['--wheels', wheels] : [])]);
    const tag = /swe-env\/base:[\w.-]+-plus-[0-9a-f]+/.exec(r.text)?.[0];
    if (r.code !== 0 || !tag) throw new Error(`images base --packages ${packages} failed:\n${r.text}`);
    bases.set(key, tag);
  }
  return bases.get(key);
}

const config = compileConfig({ testTimeoutS });
const provider = new DockerSandboxProvider(`corpus-${process.pid}`, { ownedByThisProcess: true });
const grader = new Grader(provider, new Semaphore(1), {
  limits: config.limits, testTimeoutS, logLimitBytes: 8 * 1024 * 1024, maxGradings: 1,
  installRerun: config.installRerun, rewardRule: config.rewardRule, harnessGeneration: config.harnessGeneration, gradingNetwork: config.gradingNetwork,
}, createLogger('warn'));

let interrupted = false;
process.on('SIGINT', () => { interrupted = true; process.stderr.write('interrupted: finishing the current step, then writing the report\n'); });


/** Busy processes, two per core, for as long as `work` runs; always stopped, whatever `work` does. */
async function underLoad(work) {
  const hogs = Array.from({ length: 2 * availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  // At the containers' own priority (run.sh runs this script under nice; root may undo it).
  for (const h of hogs) { try { if (h.pid) setPriority(h.pid, 0); } catch { /* not root: niced load */ } }
  const stop = () => { for (const h of hogs) h.kill('SIGKILL'); };
  process.once('exit', stop);
  try { return await work(); } finally { stop(); process.off('exit', stop); }
}

const passing = (s) => s === 'PASSED' || s === 'XFAIL';
/** swebench 5.x's parser and verdict on the same log; exact status agreement and pass/fail agreement per listed test. */
function compare(row, which, task, raw, log) {
  if (!swebenchPython) return;
  const input = JSON.stringify({ instance_id: task.id, version: task.version, log_parser: raw.log_parser, eval_type: raw.eval_type, log, fail_to_pass: [...task.failToPass], pass_to_pass: [...task.passToPass] });
  const answer = JSON.parse(execFileSync(swebenchPython, [join(root, 'scripts/corpus/swebench_compare.py')], { input: input + '\n', maxBuffer: 1 << 28 }).toString().trim());
  delete row[`${which}_disagree`];
  if (answer.error) { row[`${which}_swebench`] = `parser error: ${answer.error}`; row[`${which}_agree`] = null; return; }
  row[`${which}_swebench`] = answer.resolved ? 1 : 0;
  const ours = row[`${which}_tests`];
  const entries = Object.entries(answer.statuses);
  const sameStatus = entries.filter(([name, s]) => (s ?? 'MISSING') === (ours[name] ?? 'MISSING')).length;
  const sameClass = entries.filter(([name, s]) => passing(s) === passing(ours[name])).length;
  row[`${which}_agree`] = `${sameStatus}/${entries.length}`;
  row[`${which}_agree_passfail`] = `${sameClass}/${entries.length}`;
  const differ = entries.filter(([name, s]) => (s ?? 'MISSING') !== (ours[name] ?? 'MISSING'));
  if (differ.length) row[`${which}_disagree`] = differ.slice(0, 10).map(([n, s]) => `${n}: swebench ${s ?? 'MISSING'}, swe-env ${ours[n] ?? 'MISSING'}`);
}

function causeOf(error, log) {
  const because = [...error.split('\n'), ...log.split('\n')].map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trim()).filter((l) => /^(E\s+)?[\w.]*(Error|Exception)\b.*:|^[\w.]*Error: /.test(l));
  return because[0]?.replace(/^E\s+/, '').slice(0, 200) ?? '';
}

const merged = many('--merge');
// Merged runs: a row graded again in a later run replaces its earlier result (in the first one's place).
const results = [];
for (const d of merged) for (const row of JSON.parse(readFileSync(join(resolve(d), 'report.json'), 'utf8'))) {
  const at = results.findIndex((r) => r.instance === row.instance);
  if (at >= 0) results[at] = row; else results.push(row);
}
if (merged.length) {
  // Re-read every kept log with swebench (a parser or comparison change since the run).
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const d of merged) for (const row of JSON.parse(readFileSync(join(resolve(d), 'report.json'), 'utf8'))) {
    const r = results.find((x) => x.instance === row.instance && x.gold_s === row.gold_s);
    const task = byId.get(row.instance);
    if (!r || !task || r.gold === undefined) continue;
    for (const which of ['gold', 'empty']) {
      try {
        const log = readFileSync(join(resolve(d), 'logs', task.id, `${which}.log`), 'utf8');
        r[`${which}_cause`] = causeOf(JSON.parse(readFileSync(join(resolve(d), 'logs', task.id, `${which}.json`), 'utf8')).error, log);
        compare(r, which, task, rawRows.get(task.id), log);
      } catch { /* no log kept */ }
    }
  }
  tasks = [];
}
for (const task of tasks) {
  if (interrupted) break;
  const raw = rawRows.get(task.id);
  const row = { instance: task.id, repo: task.repo, language: languageOf(raw.log_parser), version: task.version, image: task.image };
  results.push(row);
  const dir = join(out, 'logs', task.id);
  mkdirSync(dir, { recursive: true });
  try {
    if (!flag('--no-build')) {
      const base = await baseFor(task.repo);
      const started = Date.now();
      const args = [cli, 'images', 'build', '--tasks', tasksFile, '--repo', repos, '--base', base, '--instance', task.id, '--concurrency', '1'];
      // A row with no install step of its own gets the harness's set-up only from --network-install;
      // the selection asks for it with networkInstall: true.
      const net = selection.repos[task.repo]?.networkInstall;
      if (net === true || (raw.install && net !== false)) args.push('--network-install');
      const r = await sh('node', args);
      row.build_s = Math.round((Date.now() - started) / 100) / 10;
      writeFileSync(join(dir, 'build.log'), r.text);
      if (r.code !== 0) { row.outcome = 'build failed'; row.problem = r.text.split('\n').filter(Boolean).slice(-12).join('\n'); process.stdout.write(`${task.id}: build failed\n`); continue; }
    }
    for (const which of ['gold', 'empty']) {
      let log = '';
      const started = Date.now();
      const report = await grader.grade(task, Buffer.from(which === 'gold' ? task.goldPatch : '', 'utf8'), { onTestLog: (l) => (log = l) });
      row[`${which}_s`] = Math.round((Date.now() - started) / 100) / 10;
      writeFileSync(join(dir, `${which}.log`), log);
      writeFileSync(join(dir, `${which}.json`), JSON.stringify(report, null, 1));
      row[which] = report.infraError ? 'INFRA_ERROR' : report.reward;
      row[`${which}_flags`] = report.integrityFlags;
      row[`${which}_audit`] = report.auditFlags;
      row[`${which}_error`] = report.error.split('\n')[0];
      // The line that says why (an exception's last line in the error or the log), for the report.
      row[`${which}_cause`] = causeOf(report.error, log);

      row[`${which}_harness`] = report.harness ? report.harness.resolved : null;
      row[`${which}_tests`] = Object.fromEntries([...report.failToPass, ...report.passToPass].map((t) => [t.name, t.status]));
      row[`${which}_durations`] = report.durations;
      row.canaries = report.canaries;
      compare(row, which, task, raw, log);
    }
    row.outcome = row.gold === 1 && row.empty === 0 && !row.gold_flags.length && !row.empty_flags.length ? 'ok' : 'NOT SOUND';
    if (loadRuns > 0 && row.outcome === 'ok') {
      const failed = [];
      await underLoad(async () => {
        for (let i = 0; i < loadRuns && !interrupted; i++) {
          const report = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'));
          if (report.reward !== 1 || report.infraError) failed.push([...report.failToPass, ...report.passToPass].filter((t) => !passing(t.status)).map((t) => `${t.name} ${t.status}`).join(', ') || report.error.split('\n')[0]);
        }
      });
      row.gold_under_load = `${loadRuns - failed.length}/${loadRuns}`;
      if (failed.length) { row.outcome = 'timing-flaky'; row.problem = `gold under CPU load scored 0 in ${failed.length} of ${loadRuns} runs: ${failed[0]}`; }
    }
    process.stdout.write(`${task.id}: ${row.outcome} gold ${row.gold} empty ${row.empty} build ${row.build_s ?? '-'}s grade ${row.gold_s}+${row.empty_s}s${row.gold_under_load ? ` gold under load ${row.gold_under_load}` : ''} agree ${row.gold_agree ?? '-'} ${row.empty_agree ?? '-'}${row.gold_error ? ` (gold: ${row.gold_error})` : ''}\n`);
  } catch (error) {
    row.outcome = 'error'; row.problem = String(error?.stack ?? error);
    process.stdout.write(`${task.id}: error ${error}\n`);
  } finally {
    writeFileSync(join(out, 'report.json'), JSON.stringify(results, null, 1));
    if (!flag('--keep-images')) await sh('docker', ['image', 'rm', '-f', task.image]);
  }
}
await provider.removeServerContainers();
if (merged.length) writeFileSync(join(out, 'report.json'), JSON.stringify(results, null, 1));

const cell = (v) => (v === undefined || v === null ? '-' : Array.isArray(v) ? (v.length ? v.join('; ') : '-') : String(v)).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const lines = [
  '| instance | repo | language | build s | grade s (gold+empty) | gold | empty | swebench gold/empty | integrity flags | audit flags (gold) | same status as swebench (gold; empty) | same pass/fail (gold; empty) | gold under load | outcome |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) => `| ${r.instance} | ${r.repo} | ${r.language} | ${cell(r.build_s)} | ${r.gold_s !== undefined ? `${r.gold_s}+${r.empty_s ?? '-'}` : '-'} | ${cell(r.gold)} | ${cell(r.empty)} | ${cell(r.gold_swebench)}/${cell(r.empty_swebench)} | ${cell([...(r.gold_flags ?? []), ...(r.empty_flags ?? [])])} | ${cell([...new Set((r.gold_audit ?? []).map((f) => f.split(' from ')[0].split(' (')[0]))])} | ${cell(r.gold_agree)}; ${cell(r.empty_agree)} | ${cell(r.gold_agree_passfail)}; ${cell(r.empty_agree_passfail)} | ${cell(r.gold_under_load)} | ${cell(r.outcome)} |`),
];
const failing = results.filter((r) => r.outcome !== 'ok');
const details = failing.map((r) => `- **${r.instance}** (${r.outcome}): ${cell(r.problem ?? [r.gold_error, r.gold_cause].filter(Boolean).join(': ') ?? '')}${r.gold_disagree ? ` disagreements: ${cell(r.gold_disagree)}` : ''}`);
writeFileSync(join(out, 'report.md'), [`# swe-env real-task corpus: ${results.filter((r) => r.outcome === 'ok').length} of ${results.length} rows sound`, '', ...lines, '', ...(details.length ? ['## Rows not sound', '', ...details] : []), ''].join('\n'));
process.stdout.write(`report: ${join(out, 'report.md')}\n`);
if (failing.length) process.exitCode = 1;
