/**
 * The exec channel taken over by code of the change (exploits.ts): graded through a real server's
 * Evaluate with the channel on (the default) and off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHEAT_TASK } from '../shared/episode-attack.js';
import { expectNoContainers, startTestServer, type TestServer } from '../../helpers/server.js';
import { said } from '../../helpers/exploit-grading.js';
import { CLEAN_FILTER_TAKEOVER } from './exploits.js';

let on: TestServer | undefined;
let off: TestServer | undefined;

beforeAll(async () => {
  on = await startTestServer({ testTimeoutS: 30 });
  off = await startTestServer({ testTimeoutS: 30, gradingExecChannel: false });
}, 300_000);

afterAll(async () => {
  await on?.stop();
  await off?.stop();
  if (on) await expectNoContainers(on.server.provider);
});

describe('C1: a clean filter in the apply step takes the exec channel over', () => {
  // Before apply-patch.sh stopped running git after a `patch` that wrote inside .git, the channel-on
  // grading earned 1 (its apply reported as "git apply", canaries and all, no integrity flag).
  for (const [name, server] of [
    ['channel on', () => on!],
    ['channel off', () => off!],
  ] as const) {
    it(`${name}: refused for writing inside .git, the model's 0`, async () => {
      const report = (await server().client.evaluate(CHEAT_TASK, CLEAN_FILTER_TAKEOVER)).report!;
      expect(report.infraError, said(report)).toBe(false);
      expect(report.reward, said(report)).toBe(0);
      expect(report.patchApplied).toBe(false);
      expect(report.error).toMatch(/writes inside \.git \(patch --fuzz=5 wrote there, then failed\): refused/);
    });
  }
});
