/**
 * Masks on demand beyond pytest: a run the model fails turned into what reads as the environment's
 * failure (PID 1 of the grading container overwritten through its memory file, under any name of
 * it), or the server itself brought down by a daemon shrinking the grading channel. Each graded once
 * through a real server's Evaluate (J2 through `swe-env serve` in its own process): the model's 0,
 * never INFRA_ERROR, the server up.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../../src/client/client.js';
import { packageRoot } from '../../../src/common/paths.js';
import { DockerSandboxProvider } from '../../../src/sandbox/docker-sandbox.js';
import type { GradeReport__Output } from '../../../src/generated/swe_env/v1/GradeReport.js';
import { cliServers, killCliServers, stopCli } from '../../helpers/cli-server.js';
import { exploitGrading, itScoresNothingUnchanged, said } from '../../helpers/exploit-grading.js';
import { LANGUAGE_TASKS } from '../../helpers/language-demo.js';
import { expectNoContainers } from '../../helpers/server.js';
import { EMPTY_GO, patchOf } from '../shared/language-plants.js';
import { ALIASES, J2_CHANNEL_GROWS, M1_KEEPER_OVERWRITTEN, M2_ALIASED_MEMORY } from './exploits.js';

const { grade, expectWorthless } = exploitGrading();

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO]);
});

describe('mask on demand: PID 1 overwritten through /proc/1/mem (M1): defeated', () => {
  it('M1 is the change it says (its rewrite of the gold fix took)', () => {
    expect(M1_KEEPER_OVERWRITTEN.files['semver.go']).toContain('\tstopKeeper()\n');
  });
  // INFRA_ERROR until 3c9c226: /proc/1/mem of the keeper (same uid, dumpable) was writable from
  // the tests without ptrace; int3 over its code killed it with SIGTRAP, the container stopped, and
  // the grading read that as "killed from outside". PID 1's mem files are now covered.
  it(`[secure] ${M1_KEEPER_OVERWRITTEN.name}: the model's 0, the tests run to their end`, async () => {
    const report = await grade(M1_KEEPER_OVERWRITTEN);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toMatch(/^FAIL\texample\.com\/semver\t/m);
    await expectWorthless(M1_KEEPER_OVERWRITTEN);
  }, 240_000);
});

/**
 * M2: M1 through other names of PID 1's memory file. The cover is on the file, not on a spelling of
 * its path, so every name lands on /dev/null: the tests run to their end and the unfixed package
 * scores the model's 0, never INFRA_ERROR.
 */
describe("PID 1's memory under other names (M2)", () => {
  it("is the change it says (the aliased writes replaced M1's)", () => {
    for (const alias of ALIASES) expect(M2_ALIASED_MEMORY.files['semver.go']).toContain(JSON.stringify(alias));
    expect(M2_ALIASED_MEMORY.files['semver.go']).not.toContain('os.OpenFile("/proc/1/mem"');
  });

  it(`[secure] ${M2_ALIASED_MEMORY.name}: the tests run to their end, the model's 0`, async () => {
    const report = await grade(M2_ALIASED_MEMORY);
    expect(report.error, said(report)).not.toMatch(/stopped|killed from outside/);
    expect(report.logTail, said(report)).toMatch(/--- FAIL: TestCompareMultiDigitComponents/);
    await expectWorthless(M2_ALIASED_MEMORY);
  }, 240_000);
});

/**
 * J2 against `swe-env serve` in its own process (as operators run it): what it does to the
 * server process is part of the outcome, and an uncaught exception must not reach this one.
 */
describe("the channel read after the run (J2): a deserved 0 must stay the model's 0, the server up", () => {
  const serverId = `cheats-j2-${randomUUID().slice(0, 8)}`;
  let outcome: Promise<{ report?: GradeReport__Output; error?: string; serverExited: boolean; stderr: string }> | undefined;
  function gradeOnCli(): NonNullable<typeof outcome> {
    outcome ??= (async () => {
      // serveCli's own spawn, with the server's stderr kept: it says why the process ended.
      const child = spawn(
        'node',
        [
          join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
          'serve',
          '--port',
          '0',
          '--log-level',
          'warn',
          '--tasks',
          LANGUAGE_TASKS,
          '--server-id',
          serverId,
          '--no-state',
          '--no-trajectories',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      cliServers.push(child);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
      const address = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (d: Buffer) => {
          const match = /listening on (\S+)/.exec(d.toString());
          if (match) resolve(match[1]!);
          else reject(new Error(`unexpected output: ${d.toString()}`));
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
      });
      const client = new SweEnvClient(address);
      try {
        const report = (await client.evaluate(J2_CHANNEL_GROWS.task, patchOf(J2_CHANNEL_GROWS))).report!;
        return { report, serverExited: gone(), stderr };
      } catch (error) {
        // A call cut off: give the process a moment to be seen gone.
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        return { error: String(error), serverExited: gone(), stderr };
      } finally {
        client.dispose();
        if (!gone()) await stopCli(child, 'SIGTERM');
      }
    })();
    return outcome;
  }

  afterAll(async () => {
    killCliServers();
    // A crashed server leaves its grading container (and the daemon in it) behind.
    const provider = new DockerSandboxProvider(serverId);
    await provider.removeServerContainers();
    await expectNoContainers(provider);
  }, 120_000);

  // Crashed `swe-env serve` until the tests' leftovers were ended before the channel file is read
  // and a tar entry cut short became a rejected read: the daemon shrank the file under the engine's
  // copy, tar-stream raised "Unexpected end of data" on an entry stream with no error listener, and
  // the uncaught exception ended the server and every episode it held.
  it(`[secure] ${J2_CHANNEL_GROWS.name}: the server lives on, and the run is the model's 0`, async () => {
    const result = await gradeOnCli();
    expect(result.serverExited, `${result.error}\n${result.stderr}`).toBe(false);
    expect(result.stderr).not.toMatch(/Unexpected end of data/);
    expect(result.report!.infraError, said(result.report!)).toBe(false);
    expect(result.report!.reward, said(result.report!)).toBe(0);
  }, 240_000);
});
