import type Docker from 'dockerode';
import { UnavailableError } from '../../common/errors.js';
import { engineUnreachable, statusCodeOf } from '../docker-exec.js';
import { parseReference } from './image-reference.js';
import type { PullEvent } from './pull-progress.js';
import type { RegistryAuth } from './registry-credentials.js';

/** What the pull manager needs of an engine: the one seam its tests and other engines use. */
export interface PullEngine {
  exists(image: string): Promise<boolean>;
  /** Pulls `reference`, telling each progress event; aborting the signal stops the engine's pull. */
  pull(reference: string, auth: RegistryAuth | undefined, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void>;
  /** Gives the image `from` the name `to` and drops the name `from` (a mirror's name). */
  rename(from: string, to: string): Promise<void>;
}

export class DockerPullEngine implements PullEngine {
  constructor(private readonly docker: Docker) {}

  async exists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if (statusCodeOf(error) === 404) return false;
      if (engineUnreachable(error)) throw new UnavailableError(`the container engine does not answer (${String(error)}); try again later`);
      throw error;
    }
  }

  async pull(reference: string, auth: RegistryAuth | undefined, onEvent: (event: PullEvent) => void, signal: AbortSignal): Promise<void> {
    const stream = (await this.docker.pull(
      reference,
      auth ? { authconfig: auth, abortSignal: signal } : { abortSignal: signal },
    )) as NodeJS.ReadableStream & { destroy?: (e?: Error) => void };
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        // Closing the request is how the engine learns to stop pulling.
        stream.destroy?.(new Error('pull stopped'));
        reject(signal.reason instanceof Error ? signal.reason : new Error('pull stopped'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // docker-modem's followProgress resolves even when the stream ends on an error message.
      let streamError: string | undefined;
      this.docker.modem.followProgress(
        stream,
        (error: Error | null) => {
          signal.removeEventListener('abort', onAbort);
          if (error) reject(error);
          else if (streamError !== undefined) reject(new Error(streamError));
          else resolve();
        },
        (event: PullEvent) => {
          if (typeof event.error === 'string') streamError ??= event.error;
          onEvent(event);
        },
      );
    });
  }

  async rename(from: string, to: string): Promise<void> {
    const target = parseReference(to);
    const repo = to.slice(0, to.length - (target.tag !== undefined ? target.tag.length + 1 : 0));
    await this.docker.getImage(from).tag({ repo, tag: target.tag ?? 'latest' });
    // Untag only: the image stays under its task's name.
    await this.docker.getImage(from).remove({ noprune: true });
  }
}
