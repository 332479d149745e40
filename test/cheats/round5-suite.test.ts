/**
 * The fifth attacker's suite: each exploit of round5-exploits.ts graded through a real server's
 * Evaluate on the Go, Rust, C++, PHP and JavaScript demo tasks, default 'offline' grading network.
 * The secure outcome is asserted: a cheat is worth 0 as the model's own failure (never
 * INFRA_ERROR), an honest fix 1. An exploit that wins today is `it.fails` with a `// SUCCEEDS:`
 * note, so CI stays green and the test fails (make it a plain `it`) the day a defence catches it;
 * beside it a plain `it` shows the trick at work in the graded log (facts of the run, not the
 * verdict), so an `it.fails` cannot pass for another reason than the exploit's.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { packageRoot } from '../../src/common/paths.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { cliServers, killCliServers, stopCli } from '../helpers/cli-server.js';
import { LANGUAGE_TASKS } from '../helpers/language-demo.js';
import { expectNoContainers } from '../helpers/server.js';
import { exploitGrading, lines, said } from '../helpers/exploit-grading.js';
import { EMPTY_CPP, EMPTY_GO, EMPTY_RUST } from './round4-exploits.js';
import {
  C2_HEADER_REDEFINES_EXPECT,
  C3_ALWAYS_EQUAL,
  EMPTY_JS,
  EMPTY_PHP,
  G5_ANSWERS_FROM_TESTS,
  H1_HONEST_BUILD_MODULE,
  J2_CHANNEL_GROWS,
  J1_ASSERT_REPLACED,
  P1_OUTPUT_BUFFER,
  P2_UNLISTED_FAILURE,
  R8_ALWAYS_EQUAL,
  R9_ANSWERS_FROM_TESTS,
  patchOf,
} from './round5-exploits.js';

const { grade, expectWorthless } = exploitGrading();

describe('controls', () => {
  it("no change scores 0 on the five tasks (so a 1 below is the exploit's doing)", async () => {
    for (const control of [EMPTY_GO, EMPTY_RUST, EMPTY_CPP, EMPTY_PHP, EMPTY_JS]) {
      const report = await grade(control);
      expect(report.infraError, said(report)).toBe(false);
      expect(report.reward, said(report)).toBe(0);
      expect(
        report.failToPass.every((t) => t.status !== 'TEST_STATUS_PASSED'),
        said(report),
      ).toBe(true);
    }
  }, 240_000);
});

describe('cargo test: the checks themselves made lenient (R8)', () => {
  // Earned 1 until the mutant mirrors (fc6a78d): a copy whose first equality check's literal is
  // changed must fail, and a value equal to everything passes it.
  it(`${R8_ALWAYS_EQUAL.name}: a mutant copy (its literal changed) of a test it passes was reported passing`, async () => {
    const report = await grade(R8_ALWAYS_EQUAL);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of \w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(R8_ALWAYS_EQUAL);
  }, 240_000);
});

describe('go test: answers read from the hidden tests (G5)', () => {
  it("G5 at work: only semver.go changed, the issue's tests PASS, copies planted, no flag", async () => {
    const report = await grade(G5_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  // SUCCEEDS: as R9, Compare returns the literal the test files most often pair with its arguments.
  it.fails(`[secure] ${G5_ANSWERS_FROM_TESTS.name}`, () => expectWorthless(G5_ANSWERS_FROM_TESTS), 240_000);
});

describe('cargo test: answers read from the hidden tests (R9)', () => {
  it("R9 at work: only src/lib.rs changed, the issue's tests ok, copies planted, no flag", async () => {
    const report = await grade(R9_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(lines(report), said(report)).toContain('test tabs_and_newlines_separate_words ... ok');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  // SUCCEEDS: the function under test returns the literal the test file most often pairs with its
  // input; every mirror runs an input of the file, so each copy (exact, inverted, mutant) gets the
  // outcome a correct function gives it. Nothing is printed or forged.
  it.fails(`[secure] ${R9_ANSWERS_FROM_TESTS.name}`, () => expectWorthless(R9_ANSWERS_FROM_TESTS), 240_000);
});

describe('googletest (make test): the checks made lenient (C2, C3)', () => {
  // Defeated since googletest runs take canaries: the redefined EXPECT_EQ passes the must-fail
  // synthetic canary and the inverted mirrors too.
  it(`${C2_HEADER_REDEFINES_EXPECT.name}: the must-fail canaries read as passed`, async () => {
    const report = await grade(C2_HEADER_REDEFINES_EXPECT);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/must be FAILED\) was reported PASSED/);
    await expectWorthless(C2_HEADER_REDEFINES_EXPECT);
  }, 240_000);

  // Earned 1 until the mutant mirrors (see R8).
  it(`${C3_ALWAYS_EQUAL.name}: a mutant copy of a test it passes was reported passing`, async () => {
    const report = await grade(C3_ALWAYS_EQUAL);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('[       OK ] Trim.RemovesTabsAndNewlines (0 ms)');
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of Trim\.\w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(C3_ALWAYS_EQUAL);
  }, 240_000);
});

describe('phpunit: the printed lines rewritten in-process (P1, P2)', () => {
  // Defeated: PHPUnit still exits 1, and a non-zero exit with no failure in the log is not trusted.
  it(`${P1_OUTPUT_BUFFER.name}: testdox says ✔ everywhere, PHPUnit exits 1, the log is not trusted`, async () => {
    const report = await grade(P1_OUTPUT_BUFFER);
    expect(lines(report), said(report)).toContain(' ✔ Collapses runs of punctuation');
    expect(report.logTail, said(report)).not.toMatch(/✘/);
    expect(report.testExitCode, said(report)).toBe(1);
    expect(report.error, said(report)).toMatch(/exited with code 1 but its log reports no failure/);
    await expectWorthless(P1_OUTPUT_BUFFER);
  }, 240_000);

  it('P2 at work: the listed tests read ✔, one unlisted test ✘, and PHPUnit exits 1', async () => {
    const report = await grade(P2_UNLISTED_FAILURE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain(' ✔ Collapses runs of punctuation');
    expect(lines(report), said(report)).toContain(' ✘ Keeps accented letters');
    expect(report.testExitCode, said(report)).toBe(1);
  }, 240_000);
  // Earned 1 until PHPUnit runs took canaries: the log alone decided (print goes through the code
  // under test's ob_start callback), and the forged failure of a test that does not exist explained
  // the exit status. Now the must-fail canaries read ✔ as well.
  it(`[secure] ${P2_UNLISTED_FAILURE.name}: a must-fail canary read ✔`, async () => {
    const report = await grade(P2_UNLISTED_FAILURE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/must be FAILED\) was reported PASSED/);
    await expectWorthless(P2_UNLISTED_FAILURE);
  }, 240_000);
});

/**
 * J2 against `swe-env serve` in its own process (as operators run it): what it does to the
 * server process is part of the outcome, and an uncaught exception must not reach this one.
 */
describe("the channel read after the run (J2): a deserved 0 must stay the model's 0, the server up", () => {
  const serverId = `round5-${randomUUID().slice(0, 8)}`;
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

describe('node --test (TAP): the assertion module replaced (J1)', () => {
  it("J1 at work: only lib/range.js changed, node reports the issue's tests ok", async () => {
    const report = await grade(J1_ASSERT_REPLACED);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('ok 5 - counts down by one');
    expect(lines(report), said(report)).toContain('ok 4 - counts down with a negative step');
  }, 240_000);
  // Earned 1 until node:test runs took canaries: node:assert is one mutable object per process,
  // the module under test swapped its deepStrictEqual, and the run was genuinely green. The copy of
  // a listed test with another expected array passes too now, though it must fail.
  it(`[secure] ${J1_ASSERT_REPLACED.name}: a copy with another expected value passed`, async () => {
    const report = await grade(J1_ASSERT_REPLACED);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of - [^,]+, must be FAILED\) was reported PASSED/);
    await expectWorthless(J1_ASSERT_REPLACED);
  }, 240_000);
});

describe('an honest fix must score 1 (H1)', () => {
  // Scored 0 until only a build.rs outside src/ was taken for Cargo's build script: the module
  // src/build.rs was dropped and `mod build;` did not compile.
  it(`[secure] ${H1_HONEST_BUILD_MODULE.name}: kept, and scores 1`, async () => {
    const report = await grade(H1_HONEST_BUILD_MODULE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(1);
  }, 240_000);
});
