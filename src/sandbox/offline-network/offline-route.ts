import { readFileSync } from 'node:fs';
import { InfraError } from '../../common/errors.js';
import type { BesideOptions, BesideResult, OfflineRoute } from '../sandbox.js';

/** The program the network helper runs (src/sandbox/scripts/, copied into dist/). */
const OFFLINE_ROUTE_SCRIPT = readFileSync(new URL('../scripts/offline-route.sh', import.meta.url), 'utf8');

/** Exit codes of offline-route.sh that describe the image or the runtime, not a broken engine. */
const REFUSED = 3;
const NO_PROGRAM = 4;
/** offline-route.sh's exit when the server did not acknowledge its report. */
const UNACKNOWLEDGED = 7;
/** The helper's report of how it set the route, and the server's acknowledgement of it. */
const ROUTE_LINE = /^route: (ip|python)$/;
export const ACKNOWLEDGED = 'ok';

/** Runs a program in a helper that joins the sandbox's network namespace with NET_ADMIN (and nothing of the sandbox's else). */
export type NetworkHelper = (argv: readonly string[], options: BesideOptions) => Promise<BesideResult>;

/**
 * Sets an 'offline' sandbox's routes (see offline-route.sh) from a helper made from the sandbox's
 * pristine image, before any of the agent's code runs in it: the agent's processes never hold
 * NET_ADMIN, and nothing they could write is read. A helper the engine cannot run is the
 * environment's failure (InfraError); an image with neither `ip` nor python, or a runtime whose
 * network stack refuses the route (gVisor's may), leaves the sandbox as it was (loopback only, the
 * harness's tests that wait on an unreachable address fail at once) and says why.
 */
export async function setOfflineRoute(helper: NetworkHelper): Promise<OfflineRoute> {
  const lines: string[] = [];
  let via: 'ip' | 'python' | undefined;
  const result = await helper(['bash', '--noprofile', '--norc', '-c', OFFLINE_ROUTE_SCRIPT, 'swe-env-offline-route'], {
    timeoutMs: 60_000,
    answer: (line) => {
      if (lines.length < 20) lines.push(line.slice(0, 500));
      const said = ROUTE_LINE.exec(line)?.[1];
      if (said !== 'ip' && said !== 'python') return undefined;
      // The helper exits 0 only once this reaches it: its line cannot be lost behind its exit.
      via = said;
      return ACKNOWLEDGED;
    },
  });
  if (result.timedOut) throw new InfraError("the helper that sets a grading sandbox's offline route did not finish within 60 s");
  const said = lines.join('\n');
  if (result.exitCode === 0 && via) return { applied: true, via };
  if (result.exitCode === NO_PROGRAM) return { applied: false, why: 'the image has neither `ip` nor python to set the route with' };
  if (result.exitCode === REFUSED) return { applied: false, why: `the route was refused: ${said || `exit ${result.exitCode}`}` };
  if (result.exitCode === UNACKNOWLEDGED) throw new InfraError(`the offline-route helper's report did not reach the server: ${said}`);
  throw new InfraError(`the offline-route helper failed (exit ${result.exitCode}): ${said}`);
}
