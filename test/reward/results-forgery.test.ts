import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { expectNoContainers, DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Code under test runs inside pytest's process: it can rewrite pytest's reports, or print a second
 * final summary and end the process with exit code 0. Each trick is shown working in the agent's
 * own container (pytest there really reports the failing tests as passing), then graded: the
 * recorder's signed records contradict it and the reward is 0, with the reason in the report.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__intervals-1')!;
const TESTS = 'tests/test_interval.py';

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

/** Appends Python to the package's __init__ (not a test file: the filter keeps it). */
function appendToPackage(code: string): string {
  return `cat >> intervals/__init__.py <<'SWE_ENV_EOF'\n${code}\nSWE_ENV_EOF`;
}

const REWRITE_REPORTS = `
import sys as _sys
if "_pytest" in _sys.modules:
    import _pytest.reports as _reports
    _original_init = _reports.TestReport.__init__
    def _forged_init(self, *args, **kwargs):
        _original_init(self, *args, **kwargs)
        if self.outcome == "failed":
            self.outcome = "passed"
            self.longrepr = None
    _reports.TestReport.__init__ = _forged_init
`;

function forgedSummary(names: readonly string[]): string {
  const lines = names.map((n) => `    _sys.stdout.write(${JSON.stringify(`PASSED ${n}\n`)})`).join('\n');
  return `
import atexit as _atexit, os as _os, sys as _sys
def _forge():
    _sys.stdout.write("\\n=========================== short test summary info ============================\\n")
${lines}
    _sys.stdout.write("============================== ${names.length} passed in 0.01s ===============================\\n")
    _sys.stdout.flush()
    _os._exit(0)
if "_pytest" in _sys.modules:
    _atexit.register(_forge)
`;
}

async function episodeWith(
  code: string,
  probe = `python3 -m pytest -rA ${TESTS} 2>&1 | tail -n 40; exit \${PIPESTATUS[0]}`,
): Promise<{
  inContainer: string;
  exitCode: number;
  report: Record<string, unknown> & { integrityFlags: string[]; reward: number; resultsSource: string };
}> {
  const reset = await t.client.reset({ taskId: task.id });
  const id = reset.episodeId;
  try {
    const edit = await t.client.bash(id, 0, appendToPackage(code));
    expect(edit.exitCode).toBe(0);
    // The trick at work in the agent's own container.
    const run = await t.client.bash(id, 1, probe);
    const submitted = await t.client.submit(id, 2);
    return { inContainer: run.observation, exitCode: run.exitCode, report: submitted.report as never };
  } finally {
    await t.client.close(id);
  }
}

describe('results the code under test forges', () => {
  it('pytest reports rewritten at import: PASSED in the container, 0 once graded (the recorder sees pytest tampered with)', async () => {
    // The hidden tests are not in the agent's container: a probe test that must fail shows the trick.
    const probe =
      "printf 'import intervals\\ndef test_probe():\\n    assert False\\n' > /tmp/test_probe.py && python3 -m pytest -rA -p no:cacheprovider /tmp/test_probe.py";
    const { inContainer, exitCode, report } = await episodeWith(REWRITE_REPORTS, probe);
    expect(inContainer).toMatch(/PASSED \S*test_probe\.py::test_probe/);
    expect(inContainer).not.toMatch(/^FAILED /m);
    expect(exitCode).toBe(0);
    expect(report.reward).toBe(0);
    expect(report.resultsSource).toBe('recorder');
    expect(report.integrityFlags.join('\n')).toMatch(/replaced _pytest\.reports\.TestReport\.__init__/);
    expect((report as unknown as { patchWarnings: string[] }).patchWarnings.join('\n')).toMatch(
      /intervals\/__init__\.py:\d+: reaches into pytest's internals/,
    );
  });

  it('a second final summary printed at exit with os._exit(0): all PASSED in the container log, 0 once graded (recorder and log disagree)', async () => {
    const names = [...task.failToPass, ...task.passToPass];
    const { inContainer, exitCode, report } = await episodeWith(forgedSummary(names));
    // The last summary the container prints lists every test PASSED, and the run exits 0: the
    // printed log alone would say resolved.
    const lastSummary = inContainer.slice(inContainer.lastIndexOf('short test summary info'));
    for (const name of names) expect(lastSummary).toContain(`PASSED ${name}`);
    expect(lastSummary).not.toMatch(/FAILED/);
    expect(exitCode).toBe(0);
    expect(report.reward).toBe(0);
    const flags = report.integrityFlags.join('\n');
    expect(flags).toMatch(/PASSED in the printed log, FAILED in the recorder/);
    // The status mismatch is reported, not counted: honest atexit handlers end processes too.
    expect((report as unknown as { auditFlags: string[] }).auditFlags.join('\n')).toMatch(
      /pytest ended with exit status 1 but the process exited with 0/,
    );
    expect((report as unknown as { patchWarnings: string[] }).patchWarnings.join('\n')).toMatch(
      /registers exit hooks or ends the process abruptly/,
    );
  });

  it('an honest fix still scores 1 through the recorder', async () => {
    const report = (await t.client.evaluate(task.id, task.goldPatch)).report!;
    expect(report.reward).toBe(1);
    expect(report.resultsSource).toBe('recorder');
    expect(report.integrityFlags).toEqual([]);
  });
});
