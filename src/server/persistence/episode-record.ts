import { RECORD_VERSION, type EpisodeRecord } from '../episode/types.js';

export { RECORD_VERSION, type EpisodeRecord, type InflightStep } from '../episode/types.js';

/** A record read back from disk, checked enough that recovery can rely on its fields. */
export function parseRecord(text: string): EpisodeRecord {
  const value = JSON.parse(text) as Partial<EpisodeRecord> | null;
  if (!value || typeof value !== 'object') throw new Error('not an object');
  if (value.version !== RECORD_VERSION) throw new Error(`record version ${String(value.version)}, this server reads ${RECORD_VERSION}`);
  for (const key of ['id', 'taskId', 'serverId', 'containerId', 'pristineHead', 'groupId', 'cwd'] as const) {
    if (typeof value[key] !== 'string') throw new Error(`${key} is missing`);
  }
  for (const key of ['seed', 'createdAt', 'stepCount'] as const) {
    if (typeof value[key] !== 'number') throw new Error(`${key} is missing`);
  }
  if (!Array.isArray(value.recent) || typeof value.options !== 'object' || value.options === null)
    throw new Error('recent or options is missing');
  return value as EpisodeRecord;
}
