import type Docker from 'dockerode';
import { InfraError, messageOf } from '../common/errors.js';
import { statusCodeOf } from './docker-exec.js';

/** Every `repo:tag` the engine holds (one listing; nothing is pulled). */
export async function imageTags(docker: Docker): Promise<Set<string>> {
  const images = await docker.listImages();
  return new Set(images.flatMap((image) => image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>'));
}

export async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (error) {
    if (statusCodeOf(error) === 404) return false;
    throw new InfraError(`cannot inspect image ${image}: ${String(error)}`, { cause: error });
  }
}

/**
 * Pulls an image that is not present, when a registry answers. Without one (this project's usual
 * machine) the error names the image and how to build it.
 */
export async function ensureImage(docker: Docker, image: string): Promise<void> {
  if (await imageExists(docker, image)) return;
  try {
    const stream = await docker.pull(image);
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
    });
  } catch (error) {
    throw new InfraError(
      `image ${image} is not on this Docker engine and could not be pulled (${messageOf(error).split('\n')[0]}); build it with \`swe-env images build\` or \`swe-env images build-demo\``,
      { cause: error },
    );
  }
}
