#!/usr/bin/env node
// Writes tasks/corpus/tasks.jsonl: the rows named in tasks/corpus/selection.json, taken from
// SWE-bench's own parquet files in the history of github SWE-bench/SWE-bench (git show REV:PATH on
// a local mirror), each with an install step and an image name of its own.
//
//   node scripts/corpus/make-rows.mjs --swe-bench-git /work/.mirror/SWE-bench+SWE-bench/repo
//
// An install step is composed from swebench 4.1's MAP_REPO_VERSION_TO_SPECS (tasks/corpus/
// harness-4.1-specs.json: pip_packages, pre_install, install; 5.x rows carry none) unless the
// selection gives one for the repository; apt-get lines are left to the base image (--packages).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetReadObjects } from 'hyparquet';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const gitDir = opt('--swe-bench-git') ?? '/work/.mirror/SWE-bench+SWE-bench/repo';
const selection = JSON.parse(readFileSync(join(root, 'tasks/corpus/selection.json'), 'utf8'));
const specs = JSON.parse(readFileSync(join(root, 'tasks/corpus/harness-4.1-specs.json'), 'utf8'));

async function readParquet(rev, path) {
  const buf = execFileSync('git', ['--git-dir', gitDir, 'show', `${rev}:${path}`], { maxBuffer: 1 << 30 });
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return parquetReadObjects({ file });
}

function installFor(row) {
  const repoSel = selection.repos[row.repo] ?? {};
  if (repoSel.install !== undefined) return repoSel.install;
  const spec = specs[row.repo]?.[row.version];
  // Not a Python row of the 4.1 table: no install step written, so `images build --network-install`
  // gives the row the harness's own set-up for its repository and version (src/tasks/harness-install.ts).
  if (!spec) return undefined;
  const q = (p) => `'${p.replace(/'/g, `'\\''`)}'`;
  const steps = ['set -euxo pipefail'];
  if (spec.pip_packages?.length) steps.push(`python -m pip install ${spec.pip_packages.map(q).join(' ')}`);
  for (const line of spec.pre_install ?? []) if (!/apt-get/.test(line)) steps.push(line);
  steps.push(spec.install);
  return steps.join('\n');
}

const rows = new Map();
for (const source of selection.sources) {
  for (const r of await readParquet(selection.rev, source)) if (!rows.has(r.instance_id)) rows.set(r.instance_id, { ...r, source });
}
const out = [];
for (const id of Object.values(selection.instances).flat()) {
  const r = rows.get(id);
  if (!r) throw new Error(`${id}: in no source file`);
  const row = {};
  for (const k of ['repo', 'instance_id', 'base_commit', 'patch', 'test_patch', 'problem_statement', 'hints_text', 'created_at', 'version', 'FAIL_TO_PASS', 'PASS_TO_PASS', 'environment_setup_commit', 'eval_script', 'log_parser', 'eval_type']) {
    if (r[k] !== undefined && r[k] !== null) row[k] = r[k];
  }
  // The project writes no package registry's address into its files: an issue text that quotes
  // one (a Gemfile's `source` line) keeps its shape with the address left out.
  for (const k of ['problem_statement', 'hints_text']) {
    if (typeof row[k] === 'string') row[k] = row[k].replace(/https?:\/\/(?:rubygems\.org|registry\.npmjs\.org|pypi\.org|files\.pythonhosted\.org)[^\s"']*/g, '<package source>');
  }
  const install = installFor(r);
  if (install !== undefined) row.install = install;
  row.image_name = `swe-env-corpus/${id.toLowerCase()}:latest`;
  row.corpus_source = `${selection.rev}:${r.source}`;
  out.push(JSON.stringify(row));
}
writeFileSync(join(root, 'tasks/corpus/tasks.jsonl'), out.join('\n') + '\n');
process.stdout.write(`wrote ${out.length} rows to tasks/corpus/tasks.jsonl\n`);
