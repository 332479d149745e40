import { gitHygieneInit, parseHygiene } from '../reward/git-hygiene.js';
import type { Sandbox, SandboxLimits, SandboxProvider } from '../sandbox/sandbox.js';
import { ShellSession } from '../sandbox/shell-session.js';
import type { Task } from '../tasks/task.js';

/** An episode's sandbox as Reset hands it over: container up, shell started, repository checked. */
export interface ReadySandbox {
  readonly sandbox: Sandbox;
  readonly shell: ShellSession;
  readonly head: string;
  /** Refs past the base commit the checks removed. */
  readonly removedRefs: readonly string[];
}

/**
 * Makes a task's episode sandbox: the one way both a cold Reset and the warm pool make it, so a
 * warm episode cannot differ from a cold one. `withStart` bounds the container creation (the
 * caller's admission of starts); a failure after it removes the container.
 */
export async function readySandbox(
  provider: SandboxProvider,
  task: Task,
  options: { episodeId: string; maxLifetimeS: number; limits: SandboxLimits; signal?: AbortSignal },
  withStart: <T>(create: () => Promise<T>) => Promise<T>,
): Promise<ReadySandbox> {
  // Pulled before a start slot is taken: a slot is for a container start, a pull may take minutes.
  // Pinned until its container exists, after which the engine itself keeps the image.
  const unpin = provider.pinImage(task.image);
  let sandbox: Awaited<ReturnType<SandboxProvider['create']>>;
  try {
    await provider.ensureImage(task.image, options.signal);
    sandbox = await withStart(() =>
      provider.create(
        {
          image: task.image,
          workdir: task.workdir,
          maxLifetimeS: options.maxLifetimeS,
          role: 'episode',
          episodeId: options.episodeId,
          limits: options.limits,
        },
        options.signal,
      ),
    );
  } finally {
    unpin();
  }
  try {
    const shell = await ShellSession.start(sandbox, task.workdir, gitHygieneInit(task.workdir, task.baseCommit));
    try {
      const hygiene = parseHygiene(shell.initResult, task.workdir, task.baseCommit);
      return { sandbox, shell, head: hygiene.head, removedRefs: hygiene.removed };
    } catch (error) {
      await shell.close();
      throw error;
    }
  } catch (error) {
    await sandbox.remove().catch(() => undefined);
    throw error;
  }
}
