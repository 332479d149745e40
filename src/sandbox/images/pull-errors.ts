/**
 * Which pull failures are worth another try. A registry's rate limit (429), its 5xx answers and
 * network trouble pass; a refusal of the credentials or an unknown image stays the same however
 * often it is asked, so it ends the pull at once with what to do.
 */
export type PullFailureKind = 'retry' | 'auth' | 'missing' | 'other';

const AUTH =
  /unauthori[sz]ed|authentication required|no basic auth|access denied|denied: |forbidden|\b401\b|\b403\b|incorrect username or password/i;
const MISSING = /manifest unknown|not found|does not exist|name unknown|no such image|invalid reference/i;
const RETRY =
  /\b429\b|too ?many ?requests|status:? 5\d\d|\b5\d\d [A-Z]|service unavailable|bad gateway|gateway time-?out|internal server error|connection (refused|reset)|i\/o timeout|timed? ?out|\bEOF\b|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|temporary failure|TLS handshake|network is unreachable|no route to host/i;

export function classifyPullFailure(message: string): PullFailureKind {
  // The engine answers 404 for an unknown repository even where it says "access denied".
  if (/HTTP code 404/.test(message)) return 'missing';
  if (AUTH.test(message)) return 'auth';
  if (RETRY.test(message)) return 'retry';
  if (MISSING.test(message)) return 'missing';
  return 'other';
}

/** What the user can do about a failure of this kind (the end of the final error). */
export function pullAdvice(kind: PullFailureKind, registry: string): string {
  switch (kind) {
    case 'auth':
      return `give credentials for ${registry} in Docker's config.json format with --registry-config FILE (or DOCKER_CONFIG), or check them`;
    case 'missing':
      return 'check the image name (the task record or --image-template), or build it with `swe-env images build`';
    case 'retry':
      return 'the registry kept refusing or failing (rate limit, 5xx or network): try again later, add credentials (anonymous pulls have lower limits), or pull from a mirror (--registry-mirror)';
    default:
      return 'build it with `swe-env images build` or `swe-env images build-demo` when no registry has it';
  }
}

/** The backoff before try `attempt + 1`: doubling from base, capped, with jitter so a fleet spreads out. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
