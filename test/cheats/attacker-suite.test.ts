/**
 * The attacker's suite: every exploit of attacker-exploits.ts through a real episode on a real
 * server. The trick is shown in the agent's container where it has a visible effect there, then the
 * episode submits with no fix: reward 0, and never INFRA_ERROR (a masked sample) at any step.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { CHEAT_TASK as TASK, expectWorthlessEpisode, startCheatServers, type CheatServers } from './attack.js';
import { ATTACKER_EXPLOITS, EPISODE_EXPLOITS } from './attacker-exploits.js';

let servers: CheatServers;
let plain: TestServer;
let install: TestServer;

beforeAll(async () => {
  servers = await startCheatServers();
  ({ plain, install } = servers);
});

afterAll(() => servers?.stop());

describe("an independent attacker's exploits: none earns 1, none masks its 0", () => {
  for (const exploit of ATTACKER_EXPLOITS) {
    it(`[${exploit.family}] ${exploit.name}`, () => expectWorthlessEpisode(exploit.install ? install : plain, exploit, TASK), 240_000);
  }
  for (const exploit of EPISODE_EXPLOITS) {
    it(`[${exploit.family}] ${exploit.name}`, () => expectWorthlessEpisode(plain, exploit, TASK), 240_000);
  }
});
