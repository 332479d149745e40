import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { said } from '../helpers/exploit-grading.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { demoImage } from '../helpers/task-images.js';
import { treeDiff } from '../helpers/tree-diff.js';

/**
 * A repository that is a pytest plugin, or loads one of its own package (pytest-django, anyio,
 * hypothesis do), has its fixes in the plugin's files, and the gold patch changes a file that
 * implements one of pytest's hooks. A hook file changed by the patch was an integrity flag
 * (`outcome-hook`), so the gold fix scored 0 (found by an independent attacker on a task of its
 * own). A file the task's own fix changes is now an audit finding, and so is a collection hook's
 * file in a run where the witness saw every report and no expected failure ran (`collection-hook`);
 * the canaries and the witness judge what its hooks do. Here textkit-2 loads its own modules as plugins (its test patch's conftest), and the
 * task's fix carries a hook of the package's in the fixed module.
 */
const TASK_ID = 'swe-env-demo__textkit-2';
const DEMO = join(packageRoot(), 'tasks', 'demo');
const base = (path: string): string => readFileSync(join(DEMO, 'repos', 'textkit', path), 'utf8');
const goldWrap = readFileSync(join(DEMO, 'tasks', 'textkit-2', 'fix', 'textkit', 'wrap.py'), 'utf8');
const patch = (files: Readonly<Record<string, string>>): string => treeDiff(join(DEMO, 'repos', 'textkit'), files);

/** What the package's plugin does at collection: its slow tests last (an ordinary plugin hook). */
const ORDERING_HOOK = `

def pytest_collection_modifyitems(items):
    """textkit's own pytest plugin: tests marked slow run last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is not None)
`;

/** A hook reporting every test passed (no fix): what the integrity flag is for. */
const FLIPPING_HOOK = `

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
`;

const CONFTEST = 'pytest_plugins = ["textkit.wrap", "textkit.slug"]\n';
const GOLD = patch({ 'textkit/wrap.py': goldWrap + ORDERING_HOOK });
let t: TestServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swe-env-plugin-'));
  const record = readFileSync(DEMO_TASKS, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, string>)
    .find((r) => r['instance_id'] === TASK_ID)!;
  const conftest = treeDiff(join(DEMO, 'repos', 'textkit'), { 'tests/conftest.py': CONFTEST });
  const variant = { ...record, image_name: demoImage(TASK_ID), patch: GOLD, test_patch: `${record['test_patch']!}${conftest}` };
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, `${JSON.stringify(variant)}\n`);
  t = await startTestServer({ taskFiles: [file] });
});

afterAll(async () => {
  await t?.stop();
  if (t) await expectNoContainers(t.server.provider);
  rmSync(dir, { recursive: true, force: true });
});

const grade = async (change: string) => (await t.client.evaluate(TASK_ID, change)).report!;

describe('a repository whose own modules are pytest plugins', () => {
  it("the task's fix in a module with a hook of the package's: 1, an audit finding, no integrity flag", async () => {
    const report = await grade(GOLD);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
    expect(
      report.findings.map((f) => f.kind),
      said(report),
    ).toContain('collection-hook');
  }, 300_000);

  it('no fix, and every report flipped to passed from that module: 0, the must-fail canaries passed', async () => {
    const report = await grade(patch({ 'textkit/wrap.py': base('textkit/wrap.py') + FLIPPING_HOOK }));
    expect(report.infraError, said(report)).toBe(false);
    expect(
      report.findings.map((f) => f.kind),
      said(report),
    ).toContain('canary-wrong');
    expect(report.reward, said(report)).toBe(0);
  }, 300_000);

  it("the same flipper in a module the task's fix does not change: the flipped reports are the integrity flag, the hook's file named", async () => {
    const report = await grade(patch({ 'textkit/slug.py': base('textkit/slug.py') + FLIPPING_HOOK }));
    const kinds = report.findings.map((f) => f.kind);
    expect(kinds, said(report)).toContain('outcome-not-made');
    expect(kinds, said(report)).toContain('report-hook');
    expect(report.reward, said(report)).toBe(0);
  }, 300_000);
});
