import { execFile } from 'node:child_process';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { IMAGE_BUILDER_VERSION, buildImageFromFiles, imageLabels } from '../sandbox/image-builder.js';
import { repositoryFor } from './repo-locate.js';
import { SNAPSHOT_FORMAT, snapshotAtBase } from './repo-snapshot.js';
import { initSubmodules, type MissingSubmodule } from './repo-submodules.js';
import { harnessInstallFor, type HarnessInstall } from './harness-install.js';
import { DEBIAN_SUITES, LABEL_DEBIAN_SUITE, pipUpgradeFor, pythonMinor, suiteForPython } from './debian-suites.js';
import type { Task } from './task.js';

const run = promisify(execFile);

export const LABEL_BUILD_HASH = 'swe-env.build-hash';

/**
 * In the image: the SWE-smith bug committed when there is one, the install step (or, without one, a
 * src/ layout made importable), and a final commit
 * as the SWE-bench harness makes (`-a` keeps the install's edits to tracked files out of the
 * agent's diff). Arguments: the install command, 1 when /swe_env/build/bug.patch is to be applied.
 */
const IMAGE_SCRIPT = `
set -euo pipefail
cd /testbed
git config --global --add safe.directory '*'
export GIT_AUTHOR_NAME=swe-env GIT_AUTHOR_EMAIL=swe-env@invalid GIT_COMMITTER_NAME=swe-env GIT_COMMITTER_EMAIL=swe-env@invalid
if [ "$2" = 1 ]; then
  git apply /swe_env/build/bug.patch
  git add -A
  git -c core.hooksPath=/dev/null commit --no-verify -q -m 'swe-env: introduce the task bug (SWE-smith patch)'
fi
if [ -n "$1" ]; then
  bash -c "$1"
elif [ -d src ] && ls src/*/__init__.py >/dev/null 2>&1 && command -v python3 >/dev/null; then
  # No install step and a src/ layout: make the package importable the way an editable install
  # would (a .pth file naming src/), so tests that import it find it.
  site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
  mkdir -p "$site" && echo "$PWD/src" > "$site/swe-env-src-layout.pth"
fi
# The repository's own hooks (a pre-commit running tsc, a commit-msg linter) are no part of the build.
git -c core.hooksPath=/dev/null commit --no-verify --allow-empty -qam 'swe-env: task image'
git reflog expire --expire=now --all
rm -rf /swe_env/build
`;

export interface ImageBuildResult {
  readonly taskId: string;
  readonly image: string;
  readonly status: 'built' | 'up-to-date' | 'failed';
  readonly error?: string;
  /** Submodules left empty in the image: no local repository held them (see initSubmodules). */
  readonly missingSubmodules?: readonly MissingSubmodule[];
  /**
   * Set when the install step was the harness's for the task's repository and version: the Debian
   * packages it also wants, and the Python its environment has when the base's Debian release has
   * another (with the release that has it, if one does).
   */
  readonly harnessInstall?: HarnessInstallNote;
  readonly durationS: number;
}

export interface HarnessInstallNote {
  readonly aptPackages: readonly string[];
  readonly python?: { readonly wanted: string; readonly base: string; readonly suite?: string };
}

export interface ImageBuildOptions {
  readonly provider: DockerSandboxProvider;
  readonly tasks: readonly Task[];
  /**
   * A local git repository, bare or not, holding every task's base commit; or a folder of them
   * (owner__name, owner+name, owner/name or name, each also as name.git): see repositoryFor.
   */
  readonly repoDir: string;
  readonly baseImage: string;
  /** Install step for tasks whose record has none. */
  readonly install?: string;
  /** The build container gets the host's network, so the install may download from the package index. */
  readonly networkInstall?: boolean;
  readonly force?: boolean;
  readonly concurrency: number;
  readonly logger: Logger;
  readonly onProgress?: (result: ImageBuildResult) => void;
  /** Ctrl-C: no new build starts (the caller removes the running ones' containers). */
  readonly signal?: AbortSignal;
}

/**
 * What tells pip (and a proxy-aware download) where to fetch from, taken from this process's
 * environment for a --network-install build: the script's environment only, never committed.
 */
export function packageIndexEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const passed =
    /^(PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_TRUSTED_HOST|PIP_FIND_LINKS|UV_INDEX_URL|UV_EXTRA_INDEX_URL|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)$/;
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => passed.test(entry[0]) && entry[1] !== undefined),
  );
}

/** Where a --network-install build container finds the host's CA bundle; removed with /swe_env/build before the commit. */
export const BUILD_CA_PATH = '/swe_env/build/ca-certificates.crt';

/**
 * The host's CA bundle for a --network-install build, so pip, npm, curl and git trust what the host
 * trusts (an intercepting proxy's CA among them): the first of SSL_CERT_FILE, PIP_CERT,
 * REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE, then Debian's bundle, that exists. The
 * bundle goes to BUILD_CA_PATH and the variables naming it to the script's environment only: the
 * image commits neither.
 */
export function hostCaBundle(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync): string | undefined {
  const candidates = [
    env.SSL_CERT_FILE,
    env.PIP_CERT,
    env.REQUESTS_CA_BUNDLE,
    env.NODE_EXTRA_CA_CERTS,
    env.CURL_CA_BUNDLE,
    '/etc/ssl/certs/ca-certificates.crt',
  ];
  return candidates.find((path): path is string => !!path && exists(path));
}

export function caBundleEnv(path: string = BUILD_CA_PATH): Record<string, string> {
  return {
    SSL_CERT_FILE: path,
    PIP_CERT: path,
    REQUESTS_CA_BUNDLE: path,
    CURL_CA_BUNDLE: path,
    GIT_SSL_CAINFO: path,
    NODE_EXTRA_CA_CERTS: path,
    npm_config_cafile: path,
  };
}

/** A tar file of parent/name (a file rather than a pipe: docker-modem loses a pipe whose writer already exited). */
async function tarDirectory(parent: string, name: string): Promise<NodeJS.ReadableStream> {
  const file = join(parent, `${name}.tar`);
  await run('tar', ['-C', parent, '-cf', file, name]);
  return createReadStream(file);
}

/** The base image's id and the Debian release its build labelled it with (none for another base). */
interface BaseImage {
  readonly id: string;
  readonly suite?: string;
}

/** What the CLI says of a harness install: its packages, and a Python other than the base's. */
function harnessNote(harness: HarnessInstall, base: BaseImage): HarnessInstallNote {
  const basePython = base.suite === undefined ? undefined : DEBIAN_SUITES[base.suite];
  const wanted = harness.python;
  const differs = wanted !== undefined && basePython !== undefined && pythonMinor(wanted) !== basePython;
  const suite = wanted === undefined ? undefined : suiteForPython(wanted);
  return {
    aptPackages: harness.aptPackages,
    ...(differs ? { python: { wanted, base: basePython, ...(suite ? { suite } : {}) } } : {}),
  };
}

/** The harness's steps, after a pip upgrade where the base's pip is too old for them (its conda env's is current). */
function harnessScript(harness: HarnessInstall, base: BaseImage): string {
  const upgrade = pipUpgradeFor(base.suite);
  if (!upgrade) return harness.script;
  const [first, ...rest] = harness.script.split('\n');
  return [first, upgrade, ...rest].join('\n');
}

async function buildOne(options: ImageBuildOptions, task: Task, base: BaseImage): Promise<ImageBuildResult> {
  const baseId = base.id;
  const started = Date.now();
  // A row with no install step gets the harness's own set-up for its (repository, version) when
  // the build may download (its steps do: npm ci, pip install, bundle install); offline it
  // would only fail, and an image built without it is what the record asked for.
  const harness =
    task.install === undefined && options.install === undefined && options.networkInstall
      ? harnessInstallFor(task.repo, task.version)
      : undefined;
  const install = task.install ?? options.install ?? (harness ? harnessScript(harness, base) : '');
  const hash = createHash('sha256')
    .update(
      [
        baseId,
        task.baseCommit,
        task.bugPatch ?? '',
        install,
        task.workdir,
        IMAGE_SCRIPT,
        IMAGE_BUILDER_VERSION,
        SNAPSHOT_FORMAT,
        ...(options.networkInstall ? ['network-install'] : []),
      ].join('\0'),
    )
    .digest('hex')
    .slice(0, 24);
  let missingSubmodules: MissingSubmodule[] = [];
  const done = (status: ImageBuildResult['status'], error?: string): ImageBuildResult => ({
    taskId: task.id,
    image: task.image,
    status,
    ...(error ? { error } : {}),
    ...(missingSubmodules.length > 0 ? { missingSubmodules } : {}),
    ...(harness ? { harnessInstall: harnessNote(harness, base) } : {}),
    durationS: (Date.now() - started) / 1000,
  });
  if (!options.force && (await imageLabels(options.provider.docker, task.image))?.[LABEL_BUILD_HASH] === hash) return done('up-to-date');
  // Named after this process: a build killed outright leaves it, and whoever cleans up can tell whose.
  const scratch = await mkdtemp(join(tmpdir(), `swe-env-image-${process.pid}-`));
  try {
    const name = task.workdir.split('/').filter(Boolean).at(-1) ?? 'testbed';
    const source = await repositoryFor(options.repoDir, task.repo);
    await snapshotAtBase(source, task.baseCommit, join(scratch, name));
    // Submodules from the same folder of repositories (owner+name and the other layouts).
    missingSubmodules = await initSubmodules(join(scratch, name), task.repo, (ownerName) =>
      repositoryFor(options.repoDir, ownerName, { orItself: false }),
    );
    const parentDir = task.workdir.split('/').slice(0, -1).join('/') || '/';
    const caBundle = options.networkInstall ? hostCaBundle(process.env) : undefined;
    const caFiles = caBundle ? [{ path: BUILD_CA_PATH, content: readFileSync(caBundle) }] : [];
    await buildImageFromFiles(options.provider, {
      baseImage: options.baseImage,
      archive: { data: await tarDirectory(scratch, name), path: parentDir },
      files: [...(task.bugPatch ? [{ path: '/swe_env/build/bug.patch', content: task.bugPatch }] : []), ...caFiles],
      script: IMAGE_SCRIPT.replaceAll('/testbed', task.workdir),
      scriptArgs: [install, task.bugPatch ? '1' : '0'],
      tag: task.image,
      workdir: task.workdir,
      ...(options.networkInstall
        ? { network: 'host' as const, scriptEnv: { ...packageIndexEnv(process.env), ...(caBundle ? caBundleEnv() : {}) } }
        : {}),
      labels: {
        [LABEL_BUILD_HASH]: hash,
        'swe-env.task': task.id,
        'swe-env.base-commit': task.baseCommit,
        'swe-env.source-repo': source,
        'swe-env.base-image': options.baseImage,
        ...(options.networkInstall ? { 'swe-env.network-install': 'true' } : {}),
      },
    });
    return done('built');
  } catch (error) {
    options.logger.error({ task: task.id, err: messageOf(error) }, 'image build failed');
    return done('failed', messageOf(error));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Builds each task's image from a local repository snapshot; up-to-date images are skipped. */
export async function buildTaskImages(options: ImageBuildOptions): Promise<ImageBuildResult[]> {
  const inspected = await options.provider.docker.getImage(options.baseImage).inspect();
  const suite = inspected.Config?.Labels?.[LABEL_DEBIAN_SUITE];
  const base: BaseImage = { id: inspected.Id, ...(suite ? { suite } : {}) };
  const results: ImageBuildResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.tasks.length && !options.signal?.aborted) {
      const task = options.tasks[next++]!;
      const result = await buildOne(options, task, base);
      results.push(result);
      options.onProgress?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return results;
}
