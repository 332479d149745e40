/** Every container we start carries these labels; the reaper finds leftovers through them. */
export const LABEL_MANAGED = 'swe-env.managed';
export const LABEL_SERVER = 'swe-env.server';
export const LABEL_EPISODE = 'swe-env.episode';
export const LABEL_ROLE = 'swe-env.role';
export const LABEL_EXPIRES_AT = 'swe-env.expires-at';

export function sandboxLabels(input: {
  serverId: string;
  episodeId: string;
  role: string;
  expiresAt: Date;
}): Record<string, string> {
  return {
    [LABEL_MANAGED]: 'true',
    [LABEL_SERVER]: input.serverId,
    [LABEL_EPISODE]: input.episodeId,
    [LABEL_ROLE]: input.role,
    [LABEL_EXPIRES_AT]: String(Math.floor(input.expiresAt.getTime() / 1000)),
  };
}

export function isExpired(labels: Readonly<Record<string, string>> | undefined, now: Date): boolean {
  const raw = labels?.[LABEL_EXPIRES_AT];
  if (raw === undefined) return false;
  const expiresAt = Number(raw);
  return Number.isFinite(expiresAt) && expiresAt * 1000 <= now.getTime();
}
