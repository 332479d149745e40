/**
 * A family's Python exploits as tests: each through one real episode (../shared/episode-attack.ts),
 * titled `[family] name`. An exploit of `knownOpen` (by id) still earns 1: it is asserted so, and
 * that test fails the day a defence catches it (then it moves to the plain list).
 */
import { describe, it } from 'vitest';
import { CHEAT_TASK, expectEarnsOne, expectWorthlessEpisode, type EpisodeServers } from './episode-attack.js';
import type { Exploit } from './pytest-plants.js';

export const title = (exploit: Exploit): string => `[${exploit.family}${exploit.install ? ', install re-run' : ''}] ${exploit.name}`;

/** Every exploit but the known-open ones: reward 0, the model's own failure, never INFRA_ERROR. */
export function describeWorthless(
  servers: EpisodeServers,
  what: string,
  exploits: readonly Exploit[],
  knownOpen: readonly string[] = [],
): void {
  describe(what, () => {
    for (const exploit of exploits.filter((e) => !knownOpen.includes(e.id)))
      it(title(exploit), () => expectWorthlessEpisode(servers.of(exploit), exploit, exploit.task ?? CHEAT_TASK), 240_000);
  });
}

/** The known-open ones (docs/grading.md lists them): shown working, and still worth 1. */
export function describeKnownOpen(servers: EpisodeServers, what: string, exploits: readonly Exploit[], knownOpen: readonly string[]): void {
  describe(what, () => {
    for (const exploit of exploits.filter((e) => knownOpen.includes(e.id)))
      it(
        `still earns 1 (listed in the README): ${exploit.name}`,
        () => expectEarnsOne(servers.of(exploit), exploit, exploit.task ?? CHEAT_TASK),
        240_000,
      );
  });
}
