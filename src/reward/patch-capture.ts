import { dirname } from 'node:path/posix';
import type { Sandbox } from '../sandbox/sandbox.js';
import { CAPTURE_PATCH_SCRIPT, bashArgv } from './scripts.js';

export type CaptureResult =
  | { readonly ok: true; readonly patch: Buffer; readonly durationS: number }
  | { readonly ok: false; readonly error: string; readonly infra: boolean; readonly durationS: number };

/** More changed paths than this in the repository is not a change anyone can grade. */
const MAX_CHANGED_PATHS = 20_000;

/**
 * Reads the agent's change without running anything in the agent's container: the engine's diff
 * of its writable layer says which files changed, the engine's stat says how large they are (a
 * huge or sparse file is refused before a byte of it is read), the engine's archive API copies them
 * into a fresh container from the task's pristine image, and the diff is computed there by that
 * image's own git. No git, PATH, config, hook, filter or attribute of the agent's is obeyed.
 * Compiled artefacts and anything inside .git are not part of a change. A change too large to grade
 * is the agent's doing (reward 0 with the reason), not an infrastructure error.
 */
export async function captureChange(
  agent: Sandbox,
  openScratch: () => Promise<Sandbox>,
  input: { workdir: string; baseCommit: string; maxPatchBytes: number; timeoutMs: number },
): Promise<CaptureResult> {
  const started = Date.now();
  const elapsed = (): number => (Date.now() - started) / 1000;
  const tooLarge = (why: string): CaptureResult => ({ ok: false, error: `the change is too large to grade: ${why}`, infra: false, durationS: elapsed() });
  const root = input.workdir.replace(/\/+$/, '');
  let changes;
  try {
    changes = await agent.changes();
  } catch (error) {
    return { ok: false, error: `could not list the changes in the sandbox: ${String(error)}`, infra: true, durationS: elapsed() };
  }
  const inRepo = changes
    .filter((c) => c.path.startsWith(`${root}/`))
    .map((c) => ({ ...c, rel: c.path.slice(root.length + 1) }))
    .filter((c) => c.rel !== '.git' && !c.rel.startsWith('.git/') && !c.rel.split('/').includes('__pycache__') && !/\.py[co]$/.test(c.rel));
  if (inRepo.length > MAX_CHANGED_PATHS) return tooLarge(`${inRepo.length} paths changed (at most ${MAX_CHANGED_PATHS})`);

  const files: Array<{ path: string; size: number }> = [];
  let total = 0;
  for (const change of inRepo.filter((c) => c.kind !== 'deleted')) {
    const stat = await agent.statPath(change.path);
    if (!stat || !(stat.isFile || stat.isSymlink)) continue; // directories: their files are listed too
    if (stat.size > input.maxPatchBytes) return tooLarge(`${change.rel} is ${stat.size} bytes (at most ${input.maxPatchBytes})`);
    total += stat.size;
    if (total > input.maxPatchBytes) return tooLarge(`the changed files add up to over ${input.maxPatchBytes} bytes`);
    files.push({ path: change.path, size: stat.size });
  }
  const deleted = inRepo.filter((c) => c.kind === 'deleted').map((c) => c.path);

  const scratch = await openScratch();
  try {
    const directories = [...new Set(files.map((f) => dirname(f.path)))];
    await scratch.putFiles([
      { path: '/swe_env/capture/dirs.list', content: directories.map((d) => `${d}\0`).join('') },
      { path: '/swe_env/capture/deleted.list', content: deleted.map((d) => `${d}\0`).join('') },
    ]);
    const prepared = await scratch.exec(
      ['bash', '-c', 'xargs -0 -r mkdir -p < /swe_env/capture/dirs.list && xargs -0 -r rm -rf -- < /swe_env/capture/deleted.list'],
      { timeoutMs: input.timeoutMs, outputLimitBytes: 16 * 1024 },
    );
    if (prepared.exitCode !== 0) throw new Error(`cannot prepare the capture: ${prepared.output.toString('utf8').slice(-1000)}`);
    for (const file of files) {
      const tar = await agent.readArchive(file.path, file.size + 1024 * 1024);
      await scratch.putArchive(tar, dirname(file.path));
    }
    const diff = await scratch.exec(bashArgv(CAPTURE_PATCH_SCRIPT, 'swe-env-capture', [input.workdir, input.baseCommit]), {
      workdir: '/',
      separateStderr: true,
      outputLimitBytes: input.maxPatchBytes + 1,
      timeoutMs: input.timeoutMs,
    });
    if (diff.timedOut || diff.exitCode !== 0) {
      return { ok: false, error: `computing the diff failed (exit ${diff.exitCode}): ${diff.stderr.trim().slice(-2000)}`, infra: true, durationS: elapsed() };
    }
    if (diff.outputBytes > input.maxPatchBytes) return tooLarge(`the diff is ${diff.outputBytes} bytes (at most ${input.maxPatchBytes})`);
    return { ok: true, patch: diff.output, durationS: elapsed() };
  } catch (error) {
    return { ok: false, error: `could not read the changes from the sandbox: ${String(error)}`, infra: true, durationS: elapsed() };
  } finally {
    await scratch.remove().catch(() => undefined);
  }
}
