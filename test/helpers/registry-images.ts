import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';

/** What dockerode sends as X-Registry-Auth; `serveraddress` is the registry's `host:port`. */
export interface RegistryAuthConfig {
  username?: string;
  password?: string;
  serveraddress: string;
}

interface ProgressMessage {
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Reads an engine's JSON progress stream (pull, push, build) to its end. dockerode's own
 * followProgress resolves even when the engine reports a failure inside the stream (a push that was
 * refused still answers HTTP 200), so this one rejects on the first `error` message.
 */
export async function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<ProgressMessage[]> {
  let failure: string | undefined;
  const output = await new Promise<ProgressMessage[]>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, messages: ProgressMessage[]) => (error ? reject(error) : resolve(messages)),
      (message: ProgressMessage) => {
        failure ??= message.error ?? message.errorDetail?.message;
      },
    );
  });
  if (failure !== undefined) throw new Error(failure);
  return output;
}

/**
 * Pulls `reference` through the engine, with credentials when given. Rejects with the engine's
 * message (auth failures are usually an HTTP 500 before any stream; others arrive in the stream).
 */
export async function pullImage(docker: Docker, reference: string, authconfig?: RegistryAuthConfig): Promise<void> {
  const stream = await docker.pull(reference, authconfig ? { authconfig } : {});
  await followProgress(docker, stream);
}

/** Removes image references, ignoring ones already gone; an untag only when other tags remain. */
export async function removeImages(docker: Docker, references: Iterable<string>): Promise<void> {
  for (const reference of references) {
    try {
      await docker.getImage(reference).remove({ force: true });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
  }
}

export async function imagePresent(docker: Docker, reference: string): Promise<boolean> {
  try {
    await docker.getImage(reference).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

/**
 * Builds a tiny image `FROM scratch` with one file whose content is unique to this call, so every
 * image built here has its own layer digest (a push really uploads, a pull really downloads) and
 * costs a few hundred bytes instead of the 247 MB base image. Needs no network.
 */
export async function buildTinyImage(docker: Docker, reference = `swe-env-test/tiny:${randomUUID().slice(0, 8)}`): Promise<string> {
  return buildFromFiles(docker, reference, {
    Dockerfile: 'FROM scratch\nCOPY payload /payload\nLABEL swe-env.test=local-registry\n',
    payload: `${randomUUID()}\n`,
  });
}

/** Builds `reference` from a context of named files (a Dockerfile among them), with no network. */
export async function buildFromFiles(
  docker: Docker,
  reference: string,
  files: Record<string, string | Buffer | { content: Buffer; mode: number }>,
): Promise<string> {
  const context = pack();
  for (const [name, file] of Object.entries(files)) {
    if (typeof file === 'string' || Buffer.isBuffer(file)) context.entry({ name }, file);
    else context.entry({ name, mode: file.mode }, file.content);
  }
  context.finalize();
  // tar-stream's pack is a streamx stream, not a Node one: hand the engine the finished archive.
  const chunks: Buffer[] = [];
  for await (const chunk of context) chunks.push(chunk as Buffer);
  const stream = await docker.buildImage(Readable.from([Buffer.concat(chunks)]), { t: reference, rm: true, forcerm: true });
  await followProgress(docker, stream);
  return reference;
}
