import { SweEnvClient } from '../../src/client/client.js';
import type { Task } from '../../src/tasks/task.js';
import type { TestServer } from './server.js';

/** An episode on `task` for the body, closed after it whatever happens. */
export async function withEpisode(t: TestServer, task: Task, commandTimeoutS: number, body: (id: string) => Promise<void>): Promise<void> {
  const reset = await t.client.reset({ taskId: task.id, options: { commandTimeoutS } });
  try {
    await body(reset.episodeId);
  } finally {
    await t.client.close(reset.episodeId).catch(() => undefined);
  }
}

/** The change a submit captured, from the step's info ('' when none was sent). */
export function patchOf(submitted: { info: Parameters<typeof SweEnvClient.structToObject>[0] }): string {
  const patch = SweEnvClient.structToObject(submitted.info)['model_patch'];
  return typeof patch === 'string' ? patch : '';
}
