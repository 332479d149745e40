import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A task's `repo` as owner and name (SWE-smith's `swesmith/owner__name.sha` names its upstream). */
export function ownerAndName(repo: string): { owner: string; name: string } {
  const smith = /^swesmith\/(.+?)__(.+)\.[0-9a-f]+$/i.exec(repo);
  if (smith) return { owner: smith[1]!, name: smith[2]! };
  const slash = repo.indexOf('/');
  return slash < 0 ? { owner: '', name: repo } : { owner: repo.slice(0, slash), name: repo.slice(slash + 1) };
}

/**
 * The folder names a repository may have in a folder of them, most specific first: the layouts
 * dataset builders have (SWE-bench's `owner__name`, mirrors' `owner+name`, `owner/name` nested,
 * plain `name`), each also as a bare `.git` mirror. Plain `name` comes last: two owners may share it.
 */
export function candidateFolders(repo: string): string[] {
  const { owner, name } = ownerAndName(repo);
  const stems = owner ? [`${owner}__${name}`, `${owner}+${name}`, `${owner}/${name}`, name] : [name];
  return stems.flatMap((stem) => [stem, `${stem}.git`]);
}

async function gitOut(dir: string, args: string[]): Promise<string | undefined> {
  try {
    return (await run('git', args, { cwd: dir })).stdout.trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether dir is a repository's own top (a work tree's root or a bare repository), not merely a
 * folder inside one: a package folder named like the project (`shout/shout/`) must not pass.
 */
export async function isRepositoryRoot(dir: string): Promise<boolean> {
  const here = await realpath(dir).catch(() => undefined);
  if (!here) return false;
  const gitDir = await gitOut(dir, ['rev-parse', '--absolute-git-dir']);
  if (gitDir === undefined) return false;
  if ((await realpath(gitDir).catch(() => gitDir)) === here) return true;
  const top = await gitOut(dir, ['rev-parse', '--show-toplevel']);
  return top !== undefined && top !== '' && (await realpath(top).catch(() => top)) === here;
}

/**
 * The repository for a task: the first of its candidate folders under `--repo` that is a
 * repository, else `--repo` itself when it is one (a single repository given directly).
 * (not with `orItself: false`, for a submodule's). Otherwise the error lists every name tried.
 */
export async function repositoryFor(repoDir: string, repo: string, options: { orItself?: boolean } = {}): Promise<string> {
  const folders = candidateFolders(repo);
  for (const folder of folders) {
    const candidate = join(repoDir, folder);
    if (await isRepositoryRoot(candidate)) return candidate;
  }
  if (options.orItself === false) throw new Error(`no git repository for ${repo} in ${resolve(repoDir)}: tried ${folders.join(', ')}`);
  if (await isRepositoryRoot(repoDir)) return repoDir;
  throw new Error(
    `no git repository for ${repo} in ${resolve(repoDir)}: tried ${folders.join(', ')} there, and ${resolve(repoDir)} itself is not a repository`,
  );
}
