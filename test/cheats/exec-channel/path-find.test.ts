/**
 * C2 (exploits.ts): on an image whose PATH starts with an empty element, the patch's own `find` at
 * the repository's root is the tree snapshot's, run while the exec channel is open. Graded through
 * a real server's Evaluate with the channel on and off; the gold patch and no change as controls.
 */
import { describe, expect, it } from 'vitest';
import { CHEAT_TASK } from '../shared/episode-attack.js';
import { said } from '../../helpers/exploit-grading.js';
import { channelVariantServers } from '../../helpers/channel-variant.js';
import { BASH_ON_PATH_TAKEOVER, FIND_ON_PATH_TAKEOVER } from './exploits.js';

const servers = channelVariantServers({
  name: 'empty-path-entry',
  dockerfileLines: ['ENV PATH=:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
});
const on = servers.on;
const off = servers.off;

describe('C2: the patch’s find first on PATH takes the exec channel over', () => {
  it('controls: gold 1, no change 0 (channel on)', async () => {
    const g = (await on().client.evaluate(CHEAT_TASK, servers.gold())).report!;
    expect(g.reward, said(g)).toBe(1);
    const none = (await on().client.evaluate(CHEAT_TASK, '')).report!;
    expect(none.reward, said(none)).toBe(0);
  });

  // Before the grading scripts dropped relative and repository entries from PATH, the channel-on
  // grading earned 1 (canaries and all, no integrity flag); off, the patch's find ran as root too.
  for (const [name, server] of [
    ['channel on', on],
    ['channel off', off],
  ] as const) {
    it(`${name}: the image's find runs, never the patch's: the model's 0`, async () => {
      const report = (await server().client.evaluate(CHEAT_TASK, FIND_ON_PATH_TAKEOVER)).report!;
      expect(report.infraError, said(report)).toBe(false);
      expect(report.patchApplied, said(report)).toBe(true);
      expect(report.reward, said(report)).toBe(0);
    });
  }
});

describe('C3: the patch’s bash first on PATH', () => {
  // Before the channel looked its commands up on the PATH's absolute entries only, the channel-on
  // grading earned 1 (its daemon removed the patch's bash before the test run's engine exec).
  it("channel on: every step runs the image's /bin/bash: the model's 0", async () => {
    const report = (await on().client.evaluate(CHEAT_TASK, BASH_ON_PATH_TAKEOVER)).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.patchApplied, said(report)).toBe(true);
    expect(report.reward, said(report)).toBe(0);
  });

  // Before the grading ran its bash by absolute path (as the harness runs /bin/bash /eval.sh), the
  // engine's exec found the patch's `bash` in the repository (the PATH's empty element) and refused
  // it (exit 126): the tree snapshot failed, a masked INFRA_ERROR on demand.
  it("channel off: every step runs the image's /bin/bash: the model's 0, never INFRA_ERROR", async () => {
    const report = (await off().client.evaluate(CHEAT_TASK, BASH_ON_PATH_TAKEOVER)).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.patchApplied, said(report)).toBe(true);
    expect(report.reward, said(report)).toBe(0);
  });
});
