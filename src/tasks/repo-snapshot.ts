import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { messageOf } from '../common/errors.js';

const run = promisify(execFile);

/** Part of a task image's build hash: images from snapshots without tags (before 2) or submodules (before 3) are rebuilt. */
export const SNAPSHOT_FORMAT = 'snapshot-3';

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

function lastLineOf(error: unknown): string | undefined {
  return ((error as { stderr?: string }).stderr ?? messageOf(error)).trim().split('\n').at(-1);
}

/** A fetch wants a full id; records may carry a short one (SWE-smith's repo names do). */
async function fullCommitId(source: string, baseCommit: string): Promise<string> {
  try {
    return (await git(source, ['rev-parse', '--verify', '--quiet', `${baseCommit}^{commit}`])).trim();
  } catch (error) {
    throw new Error(
      `base_commit ${baseCommit} is not in the repository ${source} (git rev-parse: ${lastLineOf(error) || 'no such commit'})`,
      { cause: error },
    );
  }
}

/**
 * The tags on base_commit or its ancestors (as refs/tags/...): setuptools-scm and `git describe`
 * read them for the package's version. A tag on a later commit is never among them, so none of
 * the future (the fix) comes along.
 */
async function tagsReachableFrom(source: string, commit: string): Promise<string[]> {
  const out = await git(source, ['tag', '--merged', commit, '--format=%(refname)']).catch(() => '');
  return out.split('\n').filter((ref) => ref.startsWith('refs/tags/'));
}

/**
 * Fetches base_commit with its history and tags. A source that holds the commit but not every
 * object of its history (a partial clone, `--filter=blob:none`, or one whose history lost objects)
 * cannot serve that: then base_commit alone is fetched (depth 1) with the tags on it, which is
 * all a shallow snapshot can give. A shallow source's own boundary is kept (`--update-shallow`).
 */
async function fetchBase(into: string, source: string, commit: string): Promise<void> {
  const tags = await tagsReachableFrom(source, commit);
  const refspecs = (refs: readonly string[]): string[] => refs.map((ref) => `+${ref}:${ref}`);
  try {
    await git(into, ['fetch', '-q', '--no-tags', '--update-shallow', source, commit, ...refspecs(tags)]);
    return;
  } catch (error) {
    const whole = lastLineOf(error);
    const onBase = (await git(source, ['tag', '--points-at', commit, '--format=%(refname)']).catch(() => ''))
      .split('\n')
      .filter((ref) => ref.startsWith('refs/tags/'));
    try {
      await git(into, ['fetch', '-q', '--no-tags', '--depth', '1', source, commit, ...refspecs(onBase)]);
    } catch (shallowError) {
      throw new Error(
        `cannot fetch base_commit ${commit} from ${source} (with its history: ${whole}; alone: ${lastLineOf(shallowError)})`,
        {
          cause: shallowError,
        },
      );
    }
  }
}

/**
 * A repository holding base_commit, its history and the tags on it, checked out on `main`: fetched
 * by commit id, so the source may be a snapshot (shallow, partial, without other branches or later
 * commits) and nothing after base_commit can come along. A missing commit is named with the
 * repository.
 */
export async function snapshotAtBase(repoDir: string, baseCommit: string, into: string): Promise<void> {
  const source = resolve(repoDir);
  await mkdir(into, { recursive: true });
  await git(into, ['init', '-q']);
  const full = await fullCommitId(source, baseCommit);
  await fetchBase(into, source, full);
  await git(into, ['checkout', '-q', '-B', 'main', full]);
  await rm(join(into, '.git', 'FETCH_HEAD'), { force: true });
  await git(into, ['reflog', 'expire', '--expire=now', '--all']);
}
