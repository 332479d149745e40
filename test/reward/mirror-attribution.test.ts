/**
 * Mirror canaries on a listed test whose outcome depends on state shared between tests (a counter
 * of its own runs): its copies disagree with it under any fix, the gold patch's included. Real
 * Docker, real gRPC, the Go demo task with that test added to its hidden test file (the same image:
 * the test patch is applied at grading time). Both directions: the gold patch scores 1, its
 * copies' disagreement seen under the gold patch too and set aside (audit flags); a rewriter of the
 * printed results still scores 0 (the copies of the other listed tests, which the gold patch's run
 * does not flag, stand).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { languageEvalScript } from '../../src/tasks/demo/language-demo.js';
import { G3_INIT_REEXEC } from '../cheats/forged-results/exploits.js';
import { patchOf } from '../cheats/shared/language-plants.js';
import { said } from '../helpers/exploit-grading.js';
import { demoVariantServer } from '../helpers/language-demo.js';

const run = promisify(execFile);
const DEMO = join(packageRoot(), 'tasks', 'demo-languages');
const STATEFUL_TEST = `
var compareRuns int

func TestCompareCountsItsRuns(t *testing.T) {
	compareRuns++
	if c, err := Compare("1.10.0", "1.9.0"); err != nil || c != compareRuns {
		t.Fatalf("Compare(1.10.0, 1.9.0) = %d, %v; want %d", c, err, compareRuns)
	}
}
`;

let goldPatch = '';

/** The test patch taking semver_test.go from `before` to `after` (git's own diff of the two files). */
async function diffOf(before: string, after: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mirror-attribution-'));
  try {
    await run('mkdir', ['-p', join(dir, 'a'), join(dir, 'b')]);
    await writeFile(join(dir, 'a', 'semver_test.go'), before);
    await writeFile(join(dir, 'b', 'semver_test.go'), after);
    // git diff exits 1 when the files differ: its output is the test patch.
    const diff = await run('git', ['diff', '--no-index', '--no-prefix', 'a/semver_test.go', 'b/semver_test.go'], { cwd: dir }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    return diff.stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** semver-1 with the stateful test added to its hidden test file and to FAIL_TO_PASS. */
async function statefulVariant(row: Record<string, string>): Promise<Record<string, string>> {
  goldPatch = row['patch']!;
  const hidden = await readFile(join(DEMO, 'tasks', 'semver-1', 'tests', 'semver_test.go'), 'utf8');
  const testPatch = await diffOf(
    await readFile(join(DEMO, 'repos', 'semver', 'semver_test.go'), 'utf8'),
    `${hidden.trimEnd()}\n${STATEFUL_TEST}`,
  );
  expect(testPatch).toMatch(/^\+func TestCompareCountsItsRuns/m);
  const failToPass = [...(JSON.parse(row['FAIL_TO_PASS']!) as string[]), 'TestCompareCountsItsRuns'];
  return {
    test_patch: testPatch,
    FAIL_TO_PASS: JSON.stringify(failToPass),
    eval_script: languageEvalScript(row['base_commit']!, testPatch, 'go test -v ./...'),
  };
}

const server = demoVariantServer('swe-env-demo__semver-1', statefulVariant);

describe('a listed test that counts its own runs', () => {
  it('the gold patch scores 1: its copies disagree under the gold patch too, and are set aside', async () => {
    const report = (await server().client.evaluate('swe-env-demo__semver-1', goldPatch)).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(1);
    expect(report.integrityFlags, said(report)).toEqual([]);
    // The flags were raised in this run and seen again in the gold patch's reference.
    expect(report.auditFlags.join('\n'), said(report)).toMatch(
      /not counted, the gold patch's run disagrees the same way \(canary semver_test\.go::\w+ \(a copy of TestCompareCountsItsRuns/,
    );
  }, 300_000);

  it('a rewriter of the printed results still scores 0: the copies of the other listed tests stand', async () => {
    const report = (await server().client.evaluate('swe-env-demo__semver-1', patchOf(G3_INIT_REEXEC))).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(0);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(
      /a copy of TestCompare(MultiDigitComponents|NumericNotTextual), must be FAILED\) was reported PASSED/,
    );
  }, 300_000);

  it('the empty patch scores 0 with no reference run (a listed test failed: the flags decide nothing)', async () => {
    const report = (await server().client.evaluate('swe-env-demo__semver-1', '')).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(0);
    expect(report.auditFlags.join('\n'), said(report)).not.toMatch(/gold patch/);
  }, 300_000);
});
