import { buildFailureText } from './build-failure.js';
import type Docker from 'dockerode';
import { InfraError } from '../common/errors.js';
import type { DockerSandboxProvider } from './docker-sandbox.js';

export interface FileImageSpec {
  readonly baseImage: string;
  /** Files written into the container before the script runs (absolute paths). */
  readonly files: ReadonlyArray<{ path: string; content: Buffer | string; mode?: number }>;
  /** A tar archive extracted at `archive.path` before the files are written. */
  readonly archive?: { readonly data: Buffer | NodeJS.ReadableStream; readonly path: string };
  /** Bash run as root inside the container, network none unless `network`; a non-zero exit fails the build. */
  readonly script: string;
  readonly scriptArgs?: readonly string[];
  /** Environment of the script only (an exec's): not committed into the image. */
  readonly scriptEnv?: Readonly<Record<string, string>>;
  readonly tag: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly workdir: string;
  readonly timeoutMs?: number;
  /** 'host': the build may download (apt, pip); the images it makes still run with no network. */
  readonly network?: 'none' | 'host';
}

function splitTag(reference: string): { repo: string; tag: string } {
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  if (colon > slash) return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  return { repo: reference, tag: 'latest' };
}

/** Part of every built image's content hash: images made by an older builder are rebuilt. */
export const IMAGE_BUILDER_VERSION = '2';

/**
 * Builds an image without a registry or a Dockerfile: a container from the base image gets the
 * files, runs the script, and is committed. Used for the demo tasks and for `images build`.
 */
export async function buildImageFromFiles(provider: DockerSandboxProvider, spec: FileImageSpec): Promise<string> {
  const sandbox = await provider.create({
    image: spec.baseImage,
    workdir: '/',
    maxLifetimeS: 3600,
    role: 'build',
    episodeId: `image-build-${spec.tag.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    limits: { memoryBytes: 4 * 1024 ** 3, nanoCpus: 2e9, pidsLimit: 4096, diskBytes: 0 },
    ...(spec.network ? { network: spec.network } : {}),
  });
  try {
    if (spec.archive) await sandbox.putArchive(spec.archive.data, spec.archive.path);
    if (spec.files.length > 0) await sandbox.putFiles(spec.files);
    const result = await sandbox.exec(['bash', '--noprofile', '--norc', '-c', spec.script, 'swe-env-build', ...(spec.scriptArgs ?? [])], {
      timeoutMs: spec.timeoutMs ?? 30 * 60_000,
      outputLimitBytes: 256 * 1024,
      ...(spec.scriptEnv ? { env: spec.scriptEnv } : {}),
    });
    if (result.timedOut || result.exitCode !== 0) {
      throw new InfraError(`building ${spec.tag} failed (exit ${result.exitCode}):\n${buildFailureText(result.output.toString('utf8'))}`);
    }
    const container = provider.docker.getContainer(sandbox.id);
    const { repo, tag } = splitTag(spec.tag);
    // The build container has no entrypoint and no labels of its own (role 'build'), so the image
    // gets exactly these: what `docker run IMAGE tail -f /dev/null` (the harness's way) expects.
    const changes = [
      `WORKDIR ${spec.workdir}`,
      'CMD ["/bin/bash"]',
      ...Object.entries(spec.labels).map(([k, v]) => `LABEL ${k}=${JSON.stringify(v)}`),
      ...(await provider.dialect.commitChanges()),
    ];
    const committed = (await container.commit({ repo, tag, changes, pause: true })) as { Id?: string; id?: string };
    return committed.Id ?? committed.id ?? spec.tag;
  } finally {
    await sandbox.remove();
  }
}

export async function imageLabels(docker: Docker, image: string): Promise<Record<string, string> | undefined> {
  try {
    const info = await docker.getImage(image).inspect();
    return info.Config?.Labels ?? {};
  } catch {
    return undefined;
  }
}

export async function tagImage(docker: Docker, image: string, reference: string): Promise<void> {
  const { repo, tag } = splitTag(reference);
  await docker.getImage(image).tag({ repo, tag });
}
