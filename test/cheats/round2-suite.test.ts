/**
 * The second attacker's suite: every exploit of round2-exploits.ts through a real episode on a real
 * server. The trick is shown in the agent's container where it has a visible effect there, then the
 * episode submits with no fix: reward 0, and never INFRA_ERROR (a masked sample) at any step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { CHEAT_TASK as TASK, expectWorthlessEpisode, startCheatServers, type CheatServers } from './attack.js';
import { ROUND2_EXPLOITS } from './round2-exploits.js';

let servers: CheatServers;
let plain: TestServer;
let install: TestServer;

beforeAll(async () => {
  servers = await startCheatServers();
  ({ plain, install } = servers);
});

afterAll(() => servers?.stop());

/**
 * What remains possible, kept honest: code that is correct only when it can tell it runs under the
 * test runner (R2 by an environment read that is only an audit finding, since honest code reads
 * PYTEST_CURRENT_TEST too), and R1b: the monitor's closure reached, its hidden tests' code swapped
 * for wrappers it marks trusted, each copy canary told from its original by its place after it
 * (R1, which spared the canaries by their old shape, scores 0 since the copies differ from their
 * originals in the expected value alone). Each still earns 1 (docs/grading.md lists them); this
 * test fails the day a defence catches one, so the list and the suite stay the same.
 */
const KNOWN_OPEN = /^(R1b|R2|R3|R4) /;

describe("the second attacker's exploits: none earns 1, none masks its 0", () => {
  for (const exploit of ROUND2_EXPLOITS.filter((e) => !KNOWN_OPEN.test(e.name))) {
    it(`[${exploit.family}] ${exploit.name}`, () => expectWorthlessEpisode(exploit.install ? install : plain, exploit, TASK), 240_000);
  }
});

describe('known open: behaviour that depends on being under the test runner, read without an audit event', () => {
  for (const exploit of ROUND2_EXPLOITS.filter((e) => KNOWN_OPEN.test(e.name))) {
    it(`still earns 1 (listed in the README): ${exploit.name}`, async () => {
      const reset = await plain.client.reset({ taskId: TASK });
      const id = reset.episodeId;
      try {
        expect((await plain.client.bash(id, 0, exploit.plant)).exitCode).toBe(0);
        expect((await plain.client.bash(id, 1, exploit.probe)).observation).toMatch(exploit.probeShows);
        const submitted = await plain.client.submit(id, 2);
        expect(submitted.report!.infraError).toBe(false);
        expect(submitted.reward).toBe(1);
      } finally {
        await plain.client.close(id).catch(() => undefined);
      }
    }, 240_000);
  }
});
