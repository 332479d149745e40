import type { Episode } from './episode.js';
import { TRAJECTORY_FORMAT, type TrajectoryHeader } from '../trajectories/trajectory-format.js';
import { promptLanguage, renderPrompt } from '../tasks/prompt.js';
import { toolSchemas } from './tools.js';

/** The first line of an episode's trajectory: what it is, and what the agent was given. */
export function trajectoryHeader(episode: Episode, serverId: string): TrajectoryHeader {
  const { task, lineage } = episode;
  return {
    type: 'episode',
    format: TRAJECTORY_FORMAT,
    episode_id: episode.id,
    task_id: task.id,
    dataset: task.dataset,
    repo: task.repo,
    base_commit: task.baseCommit,
    group_id: episode.groupId,
    seed: episode.seed,
    options: { ...episode.options },
    server_id: serverId,
    started_at: new Date(episode.createdAt).toISOString(),
    prompt: renderPrompt(task),
    tools: toolSchemas(promptLanguage(task)).map((tool) => JSON.parse(tool.openaiJson ?? '{}') as unknown),
    ...(lineage ? { parent_episode_id: lineage.parentEpisodeId, branch_step: lineage.branchStep } : {}),
  };
}
