import { identityGone } from '../common/process-identity.js';

/** Every container we start carries these labels; the reaper finds leftovers through them. */
export const LABEL_MANAGED = 'swe-env.managed';
export const LABEL_SERVER = 'swe-env.server';
export const LABEL_EPISODE = 'swe-env.episode';
export const LABEL_ROLE = 'swe-env.role';
export const LABEL_EXPIRES_AT = 'swe-env.expires-at';
/**
 * The one-shot process (a CLI command: eval, validate) whose containers these are, as
 * `host/pid/start`: once that process is gone its containers serve nobody, and the next CLI run or
 * any server's sweep on the same host removes them. Servers do not set it: their containers outlive
 * a crash on purpose (a restart re-adopts them).
 */
export const LABEL_OWNER = 'swe-env.owner';

export function sandboxLabels(input: {
  serverId: string;
  episodeId: string;
  role: string;
  expiresAt: Date;
  owner?: string | undefined;
}): Record<string, string> {
  return {
    [LABEL_MANAGED]: 'true',
    [LABEL_SERVER]: input.serverId,
    [LABEL_EPISODE]: input.episodeId,
    [LABEL_ROLE]: input.role,
    [LABEL_EXPIRES_AT]: String(Math.floor(input.expiresAt.getTime() / 1000)),
    ...(input.owner ? { [LABEL_OWNER]: input.owner } : {}),
  };
}

export function isExpired(labels: Readonly<Record<string, string>> | undefined, now: Date): boolean {
  const raw = labels?.[LABEL_EXPIRES_AT];
  if (raw === undefined) return false;
  const expiresAt = Number(raw);
  return Number.isFinite(expiresAt) && expiresAt * 1000 <= now.getTime();
}

/** Whether the one-shot process that owns a container (LABEL_OWNER) is gone from this host. */
export function ownerGone(labels: Readonly<Record<string, string>> | undefined): boolean {
  const owner = labels?.[LABEL_OWNER];
  return owner !== undefined && owner !== '' && identityGone(owner);
}

/**
 * Build containers carry no labels (a commit would copy them into the image), so a one-shot
 * process names its build containers after itself instead: `swe-env-build_HOST_PID_START_N`.
 */
export const BUILD_NAME_PREFIX = 'swe-env-build_';

export function buildContainerName(owner: string, n: number): string {
  return `${BUILD_NAME_PREFIX}${owner.replaceAll('/', '_')}_${n}`;
}

/** The owner identity a build container's name carries (undefined for any other name). */
export function buildNameOwner(name: string): string | undefined {
  const bare = name.replace(/^\//, '');
  if (!bare.startsWith(BUILD_NAME_PREFIX)) return undefined;
  const parts = bare.slice(BUILD_NAME_PREFIX.length).split('_');
  if (parts.length < 4) return undefined;
  const [start, pid] = [parts[parts.length - 2]!, parts[parts.length - 3]!];
  return `${parts.slice(0, -3).join('_')}/${pid}/${start}`;
}
