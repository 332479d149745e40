import type { Sandbox } from '../../sandbox/sandbox.js';

/** What the grading container's network came to, for the report (its route's helper done, unless cancelled). */
export async function networkOf(sandbox: Sandbox, signal: AbortSignal | undefined): Promise<string> {
  if (!signal?.aborted) await sandbox.networkReady().catch(() => undefined);
  return describeNetwork(sandbox);
}

function describeNetwork(sandbox: Sandbox): string {
  const route = sandbox.offlineRoute;
  if (sandbox.spec.network !== 'offline') return 'none';
  if (!route) return 'none: the engine set no route';
  return route.applied ? `offline (route set with ${route.via ?? '?'})` : `none: ${route.why ?? 'no route'}`;
}
