import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { messageOf } from '../common/errors.js';

const run = promisify(execFile);

/** A submodule the snapshot could not fill: where it goes, where it comes from, and why not. */
export interface MissingSubmodule {
  readonly path: string;
  readonly url: string;
  readonly reason: string;
}

/**
 * Finds a local repository for a submodule's URL (its `owner/name`), or says why there is none.
 * The builder never fetches from the URL itself: the host may have no network, and a build must
 * not depend on what a remote holds today.
 */
export type SubmoduleLocator = (ownerName: string) => Promise<string>;

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'protocol.file.allow=always', '-c', 'advice.detachedHead=false', ...args], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/**
 * `owner/name` of a submodule URL: https://host/owner/name(.git), git@host:owner/name.git,
 * ssh://git@host/owner/name, or a URL relative to the superproject's (`../name.git`, a sibling
 * under the superproject's owner). Undefined when it names no such pair.
 */
export function submoduleOwnerName(url: string, superRepo: string): string | undefined {
  const trimmed = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (trimmed.startsWith('./') || trimmed.startsWith('../')) {
    const parts = superRepo.split('/');
    for (const step of trimmed.split('/')) {
      if (step === '..') parts.pop();
      else if (step !== '.') parts.push(step);
    }
    return parts.length >= 2 ? parts.slice(-2).join('/') : undefined;
  }
  const match = /[:/]([^/:]+)\/([^/:]+)$/.exec(trimmed);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** Each submodule of the checked-out tree: its name, path, URL and the commit the tree records. */
async function submodulesOf(dir: string): Promise<Array<{ name: string; path: string; url: string; commit: string }>> {
  const listed = await git(dir, ['config', '-f', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$']).catch(() => '');
  const found = [];
  for (const line of listed.split('\n').filter(Boolean)) {
    const at = line.indexOf(' ');
    const name = line.slice('submodule.'.length, at).replace(/\.path$/, '');
    const path = line.slice(at + 1);
    const url = (await git(dir, ['config', '-f', '.gitmodules', `submodule.${name}.url`]).catch(() => '')).trim();
    // A gitlink in the tree is what the superproject pins; an entry without one is stale.
    const entry = (await git(dir, ['ls-tree', 'HEAD', '--', path])).trim();
    const commit = /^160000 commit ([0-9a-f]{40})\t/.exec(entry)?.[1];
    if (commit) found.push({ name, path, url, commit });
  }
  return found;
}

/** Undoes a submodule that could not be filled: no partial clone and no host path stay behind. */
async function forget(dir: string, name: string, path: string): Promise<void> {
  await git(dir, ['submodule', 'deinit', '-f', '--', path]).catch(() => undefined);
  const gitDir = (await git(dir, ['rev-parse', '--absolute-git-dir'])).trim();
  await rm(join(gitDir, 'modules', name), { recursive: true, force: true });
}

/**
 * Fills the snapshot's submodules (recursively) at the commits its tree pins, each from a local
 * repository the locator finds for its URL, as `git submodule update --init` would from the
 * network: the submodule's git directory under the superproject's `.git/modules/`, and the URL
 * put back to the one .gitmodules names (no host path stays in the image). A submodule with no
 * local repository, or whose repository lacks the pinned commit, is left empty and returned.
 */
export async function initSubmodules(dir: string, superRepo: string, locate: SubmoduleLocator): Promise<MissingSubmodule[]> {
  const missing: MissingSubmodule[] = [];
  for (const sub of await submodulesOf(dir)) {
    const ownerName = submoduleOwnerName(sub.url, superRepo);
    if (!ownerName) {
      missing.push({ path: sub.path, url: sub.url, reason: 'its URL names no owner/name to look for' });
      continue;
    }
    let source: string;
    try {
      source = await locate(ownerName);
    } catch (error) {
      missing.push({ path: sub.path, url: sub.url, reason: messageOf(error) });
      continue;
    }
    try {
      await git(dir, ['submodule', 'init', '--', sub.path]);
      await git(dir, ['config', `submodule.${sub.name}.url`, source]);
      await git(dir, ['submodule', 'update', '--', sub.path]);
    } catch (error) {
      await forget(dir, sub.name, sub.path);
      missing.push({
        path: sub.path,
        url: sub.url,
        reason: `commit ${sub.commit.slice(0, 12)} not taken from ${source}: ${messageOf(error).trim().split('\n').at(-1) ?? ''}`,
      });
      continue;
    } finally {
      await git(dir, ['config', `submodule.${sub.name}.url`, sub.url]).catch(() => undefined);
    }
    const inner = join(dir, sub.path);
    await git(inner, ['remote', 'set-url', 'origin', sub.url]).catch(() => undefined);
    // Its reflog says where it was cloned from (a host path), as the snapshot's own would.
    await git(inner, ['reflog', 'expire', '--expire=now', '--all']).catch(() => undefined);
    const nested = await initSubmodules(inner, ownerName, locate);
    missing.push(...nested.map((m) => ({ ...m, path: `${sub.path}/${m.path}` })));
  }
  return missing;
}
