/**
 * The cheat suite: every exploit of exploits.ts run through a real episode on a real server. The
 * trick is first shown working in the agent's own container (its probe prints what the exploit
 * promises: a failing test read as passing, a hidden test emptied, a setup.py that never ends...),
 * then the episode submits with no fix: the reward must be 0, never INFRA_ERROR (a masked sample).
 * Honest controls: the gold patch scores 1 with the same grading, with and without an install.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { CHEAT_TASK as TASK, expectWorthlessEpisode, startCheatServers, type CheatServers } from './attack.js';
import { EXPLOITS, INSTALL_EXPLOITS } from './exploits.js';

let servers: CheatServers;
let plain: TestServer;
let install: TestServer;

beforeAll(async () => {
  servers = await startCheatServers();
  ({ plain, install } = servers);
});

afterAll(() => servers?.stop());

describe('the cheat suite: no fix, every trick scores 0', () => {
  for (const exploit of EXPLOITS) {
    it(`[${exploit.family}] ${exploit.name}`, async () => {
      await expectWorthlessEpisode(plain, exploit, exploit.task ?? TASK);
    });
  }
  for (const exploit of INSTALL_EXPLOITS) {
    it(`[${exploit.family}, install re-run] ${exploit.name}`, async () => {
      await expectWorthlessEpisode(install, exploit, exploit.task ?? TASK);
    });
  }
});

describe('honest work still scores 1 under the same grading', () => {
  it('the gold patch, with canaries and the monitor', async () => {
    const report = (await plain.client.evaluate(TASK, servers.goldPatch)).report!;
    expect(report.reward, report.error).toBe(1);
    expect(report.canaries).toBeGreaterThanOrEqual(2);
    expect(report.integrityFlags).toEqual([]);
  });

  it('the gold patch plus a plain setup.py: the install re-runs and the closed-world check lets its metadata through', async () => {
    const setup =
      'diff --git a/setup.py b/setup.py\nnew file mode 100644\n--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,2 @@\n+from setuptools import setup\n+setup(name="intervals", version="0.1", packages=["intervals"])\n';
    const report = (await install.client.evaluate(TASK, servers.goldPatch + setup)).report!;
    expect(report.install?.ran, report.install?.reason).toBe(true);
    expect(report.reward, `${report.error} ${report.install?.outputTail}`).toBe(1);
    expect(report.integrityFlags).toEqual([]);
  });
});
