import type Docker from 'dockerode';
import { InfraError } from '../common/errors.js';
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
