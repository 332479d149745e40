import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { buildImageFromFiles } from '../sandbox/image-builder.js';

/**
 * A base variant's layer: the extra Debian packages from the base's own apt sources (the lists are
 * dropped again: a sandbox has no network to use them), then the wheels with no index. The wheels
 * are written under /swe_env, not /tmp: writing them there took /tmp's sticky bit, and apt's own
 * user then could not write its temporary files. Arguments: the packages (space-separated, may be
 * empty), 1 when /swe_env/build/wheels holds wheels.
 */
const VARIANT_SCRIPT = `
set -euo pipefail
if [ -n "$1" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $1 >/dev/null
  rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
fi
if [ "$2" = 1 ]; then
  # The variable rather than the flag: pip before 23.0 (bullseye's 20.3) has no such flag, and ignores it.
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-index --find-links /swe_env/build/wheels /swe_env/build/wheels/*.whl
  rm -rf /swe_env
fi
`;

export interface BaseVariantOptions {
  readonly provider: DockerSandboxProvider;
  readonly baseImage: string;
  readonly packages: readonly string[];
  /** A directory of .whl files. */
  readonly wheelsDir?: string;
}

interface Wheel {
  readonly name: string;
  readonly content: Buffer;
}

async function readWheels(dir: string): Promise<Wheel[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.whl')).sort();
  if (names.length === 0) throw new Error(`no .whl files in ${resolve(dir)}`);
  return Promise.all(names.map(async (name) => ({ name, content: await readFile(join(dir, name)) })));
}

/** Debian package names only: they reach a shell command line. */
function checkPackages(packages: readonly string[]): void {
  const bad = packages.filter((p) => !/^[a-z0-9][a-z0-9+.:=~-]*$/.test(p));
  if (bad.length > 0) throw new Error(`not Debian package names: ${bad.join(', ')}`);
}

/**
 * The variant's tag: the base's name plus a hash of the base image's id and what is added, so the
 * same request on the same base finds the image it made before, and a rebuilt base a new one.
 */
export function variantTag(baseImage: string, baseId: string, packages: readonly string[], wheels: readonly Wheel[]): string {
  const hash = createHash('sha256');
  hash.update([baseId, VARIANT_SCRIPT, ...[...packages].sort()].join('\0'));
  for (const wheel of wheels) hash.update(`\0${wheel.name}\0`).update(wheel.content);
  const slash = baseImage.lastIndexOf('/');
  const colon = baseImage.lastIndexOf(':');
  const [repo, tag] = colon > slash ? [baseImage.slice(0, colon), baseImage.slice(colon + 1)] : [baseImage, 'latest'];
  return `${repo}:${tag}-plus-${hash.digest('hex').slice(0, 12)}`;
}

/**
 * A base variant as one layer on the existing base image (not a debootstrap of its own): a build
 * container from the base installs the packages (with the host's network, for apt only at build
 * time) and the wheels, and is committed. Returns the tag; an existing one is reused.
 */
export async function buildBaseVariant(options: BaseVariantOptions): Promise<{ image: string; built: boolean }> {
  checkPackages(options.packages);
  const wheels = options.wheelsDir ? await readWheels(options.wheelsDir) : [];
  const base = await options.provider.docker.getImage(options.baseImage).inspect();
  const image = variantTag(options.baseImage, base.Id, options.packages, wheels);
  const exists = await options.provider.docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (exists) return { image, built: false };
  await buildImageFromFiles(options.provider, {
    baseImage: options.baseImage,
    files: wheels.map((w) => ({ path: `/swe_env/build/wheels/${w.name}`, content: w.content })),
    script: VARIANT_SCRIPT,
    scriptArgs: [options.packages.join(' '), wheels.length > 0 ? '1' : '0'],
    tag: image,
    // The base's labels and working directory stay as they were: task images add their own.
    labels: {},
    workdir: base.Config?.WorkingDir || '/',
    ...(options.packages.length > 0 ? { network: 'host' as const } : {}),
  });
  return { image, built: true };
}
