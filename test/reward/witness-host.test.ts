import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOOT_FILES } from '../../src/reward/recorder-channel.js';
import { CANARY, LISTED, RIGHT, TESTS, WRONG, grade, run, said, useWitnessHarness } from '../helpers/witness-harness.js';

/**
 * The boot's witness on pytest 9 and pluggy 1.6 (the demo images run Debian's pytest 7.2 and
 * pluggy 1.0), with the plugins that make, rerun or rebuild reports themselves, outside any
 * container: the boot, the recorder and the grader's reading of the channel are the real ones, run
 * as the grader runs them on a repository whose `add` is wrong, with a listed test and a canary.
 * - An independent attacker's four ways past the witness (2026-12-04), each `ATTACK SUCCEEDS`
 *   before the fixes (listed test PASSED, canary FAILED, no integrity flag): A, pytest's own
 *   call_and_report run for a copy of the item, reached through a descriptor on pluggy's
 *   HookCaller.__call__; B, a swallowing runtest_call wrapper whose code is renamed into pytest's
 *   runner.py; C, a builtin registered as pyfunc_call for the listed test only; D, every report
 *   rebuilt from edited data. Each now an integrity flag.
 * - Its honest zeros: flaky (which runs every test through its own call_and_report), a test run in
 *   a child by pytest-forked, a test that passes on pytest-rerunfailures' rerun. Each now scores.
 * - A second attacker's (2026-12-04, on the witness above), each `ATTACK SUCCEEDS` before: E1,
 *   `CallInfo.__init__` replaced to drop the listed test's failure while pytest's own from_call
 *   builds the CallInfo (pytest then makes a genuine passing report); E1c, the same through a
 *   CallInfo subclass put in `_pytest.runner`'s module global (no finding of any kind); E5, a forked
 *   child's genuine passing report of the listed test standing for the parent's, whose failing
 *   report a makereport wrapper swaps for one rebuilt from edited data. Each now an integrity flag.
 *   E2-E4 reached the monitor through what it called while running: `posixpath.abspath`'s
 *   late lookup of `os.fspath` (the replacement ran inside the hook and read its closure),
 *   `json.JSONEncoder` (handed every record before signing), `hmac.HMAC` (handed the key). The
 *   monitor now calls only its own code (with builtins of its own) and C functions: the spies test.
 * - A third attacker's (the same day, on the monitor above), each `ATTACK SUCCEEDS` before: X1, an
 *   exception whose metaclass defines __eq__ (the witness's `skip in mro` ran it inside the hook);
 *   X2, a CallInfo subclass with a `__dict__` property (the witness's instance-dict read ran it);
 *   X3, a dict subclass in the recorder's end record (the C encoder called its items() inside the
 *   hook); X4, pytest_runtestloop's code replaced by a loop logging reports rebuilt from data (read
 *   as pytest-xdist's, an audit finding); X5, a copy of pytest in another task's repository
 *   (counted as the runner's). X1 and X2 no longer reach the hook; X3-X5 are integrity flags.
 * - Its honest zero: any run with pytest-xdist workers (each died importing the recorder, whose
 *   `-p` the boot had added to the invocation the workers are started with). Now scores, with
 *   the audit finding that the workers' outcomes are not witnessed.
 * - G1 (2026-12-04, ours, on the split boot): a builtin of the boot's own copy replaced through the
 *   globals of os.environ's watching class (a function of the monitor's module), which then ran
 *   inside the hook and swapped the witness's report reader: 1, no integrity flag. Closed by
 *   construction: nothing the code under test can reach leads to the boot (the reach test).
 *   G2: the heap walked from a thread pool's worker (no code of the patch's on its stack) found the
 *   hook's closure: 1; heap walks and every thread's frames are now refused off the main thread.
 *   G3: a garbage-collection callback run at one of the hook's own allocations read its frames: 1;
 *   no collection runs inside the hook now, and anything else run there that asks for frames (a
 *   signal handler's sys._getframe) is refused.
 */
const harness = useWitnessHarness();

describe('the witness on pytest 9 with plugins that make their own reports', () => {
  it('nothing of the boot is in reach of the code under test: no function or frame of its files, not its copy of the builtins', async () => {
    const g = await grade('reach', {}, [], 'reach');
    const reach = JSON.parse(readFileSync(join(harness.scratch(), 'reach', 'repo', 'reach.json'), 'utf8')) as {
      objects: number;
      found: string[];
    };
    // The search reached the interpreter's objects (pytest's, the recorder's, the standard library's).
    expect(reach.objects, said(g)).toBeGreaterThan(10_000);
    expect(reach.found, said(g)).toEqual([]);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
  }, 60_000);

  it('attack G1, a builtin of the copy the boot keeps replaced through the class of os.environ: nothing to take hold of (it earned 1 before)', async () => {
    const g = await grade('attack-g1', {}, [], 'g1');
    expect(g.log, said(g)).toMatch(/FAILED test_target\.py::test_add_listed/);
    expect(g.statuses.get(LISTED), said(g)).toBe('FAILED');
  }, 60_000);

  it.each([
    [
      'G2',
      'g2',
      'the heap walked from a thread pool',
      /the heap walked from a thread other than the main one \(refused\) \(gc\.get_objects\)/,
    ],
    [
      'G3',
      'g3',
      // No collection runs inside the hook any more: the callback runs outside it, on frames of its own.
      'a garbage-collection callback run inside the hook, reading its frames',
      /frames read \(sys\._getframe\)/,
    ],
  ])(
    'attack %s, %s: nothing had, the listed test fails (it earned 1 before)',
    async (_id, fixture, _what, said_) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.log, said(g)).toMatch(/FAILED test_target\.py::test_add_listed/);
      expect(g.statuses.get(LISTED), said(g)).toBe('FAILED');
      expect(g.audit.join('\n'), said(g)).toMatch(said_);
    },
    60_000,
  );

  it('the control: the honest fix, listed test passing, canary failing, no integrity flag', async () => {
    const g = await grade('honest', { 'pkg/__init__.py': RIGHT });
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);

  it("the control with pytest's assertion rewriting off: the import system's own loader runs the test module, which is trusted", async () => {
    const g = await grade('honest-plain-asserts', { 'pkg/__init__.py': RIGHT }, [], undefined, ['--assert=plain']);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
    expect(g.integrity, said(g)).toEqual([]);
    expect(g.audit.join('\n'), said(g)).not.toMatch(/could not be traced to its test file/);
  }, 60_000);

  it('the empty control: the listed test failing, no integrity flag', async () => {
    const g = await grade('empty', { 'pkg/__init__.py': WRONG });
    expect(g.statuses.get(LISTED), said(g)).toBe('FAILED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);

  it.each([
    ['A', 'a2', /the code under test replaced pluggy\.HookCaller\.__call__|pytest did not make a passing report/],
    ['B', 'b1', /<no file> \S*_pytest\/runner\.py, changed by the patch/],
    ['C', 'c1', /<no code> pytest_pyfunc_call, changed by the patch/],
    [
      'D',
      'd1',
      /rebuilt from data(, where pytest made no passing report of its own| in the process that ran it| with the code under test on the stack)/,
    ],
    ['E1', 'e1', /pytest did not make a passing report for \(test_target\.py::test_add_listed, call: pytest made it failed\)/],
    ['E1c', 'e1c', /pytest did not make a passing report for \(test_target\.py::test_add_listed, call: pytest made it failed\)/],
    ['E5', 'e5', /rebuilt from data (in the process that ran it|with the code under test on the stack)/],
    ['X3', 'x3', /a record holding values the code under test made/],
    ['X4', 'x4', /rebuilt from data with the code under test on the stack/],
  ])(
    'attack %s: an integrity flag (it earned 1 before)',
    async (_id, fixture, flagged) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      // The trick works in the run: the listed test reads passing to pytest's own summary.
      expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
      expect(g.integrity.join('\n'), said(g)).toMatch(flagged);
    },
    60_000,
  );

  it.each([
    ['X1', 'x1'],
    ['X2', 'x2'],
  ])(
    'attack %s: the code under test never runs inside the hook, and the listed test fails (it earned 1 before)',
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.statuses.get(LISTED), said(g)).toBe('FAILED');
      expect(g.log, said(g)).toMatch(/FAILED test_target\.py::test_add_listed/);
    },
    60_000,
  );

  it('spies in the library functions and builtins the monitor would call are never called from its frames (the old boot called five, json.JSONEncoder and hmac.HMAC among them)', async () => {
    const g = await grade('spies', {}, [], 'spies');
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
    expect(
      existsSync(join(harness.scratch(), 'spies', 'repo', 'spied.txt'))
        ? readFileSync(join(harness.scratch(), 'spies', 'repo', 'spied.txt'), 'utf8')
        : '',
    ).toBe('');
  }, 60_000);

  it("a task of pytest's own repository: the honest fix scores, changed runner files an audit finding (every pytest file was an integrity flag)", async () => {
    const { stdout } = await run(harness.python(), ['-c', 'import _pytest, os; print(os.path.dirname(os.path.dirname(_pytest.__file__)))']);
    const installed = stdout.trim();
    const sourceDir = join(harness.scratch(), 'pytest-source');
    mkdirSync(sourceDir, { recursive: true });
    for (const name of ['_pytest', 'pytest', 'py.py']) cpSync(join(installed, name), join(sourceDir, name), { recursive: true });
    const changed = ['src/_pytest/assertion/rewrite.py', 'src/_pytest/python.py'];
    const g = await grade('pytest-repo', { 'pkg/__init__.py': RIGHT }, [], undefined, [], { sourceDir, changed, isRepository: true });
    // The run is the repository's pytest.
    expect(g.log, said(g)).toMatch(new RegExp(`rootdir: ${join(harness.scratch(), 'pytest-repo', 'repo')}`));
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
    expect(g.audit.join('\n'), said(g)).toMatch(/changes the test runner's own files: .*rewrite\.py/);
    // Its dishonest twin: the same runner, the listed test's failure swallowed by the package.
    const twin = await grade('pytest-repo-e1c', {}, [], 'e1c', [], { sourceDir, changed, isRepository: true });
    expect(twin.log, said(twin)).toMatch(/PASSED test_target\.py::test_add_listed/);
    expect(twin.integrity.join('\n'), said(twin)).toMatch(/pytest made it failed/);
    // Another task's repository holding a copy of pytest the run imports (its PYTHONPATH has the
    // repository), the copy's pyfunc_call swallowing the listed test's failure: the patch's file,
    // not the runner's (it was an audit finding alone: a third attacker's X5).
    const swallow = (file: string, text: string): string =>
      file.endsWith('python.py')
        ? text.replace(
            '    result = testfunction(**testargs)\n',
            '    try:\n        result = testfunction(**testargs)\n    except AssertionError:\n        if not pyfuncitem.name.endswith("listed"):\n            raise\n        result = None\n',
          )
        : text;
    const shadow = await grade('pytest-shadow', { 'pkg/__init__.py': WRONG }, [], undefined, [], {
      sourceDir,
      changed: ['src/_pytest/python.py'],
      isRepository: false,
      edit: swallow,
    });
    expect(shadow.log, said(shadow)).toMatch(/PASSED test_target\.py::test_add_listed/);
    expect(shadow.integrity.join('\n'), said(shadow)).not.toBe('');
  }, 90_000);

  // OPEN (docs/grading.md, what is not caught): CPython raises no audit event for a frame's
  // locals, a closure or a cell, and runs signal handlers inside the hook. Passes once nothing of the
  // hook's is in reach of a handler that interrupts it.
  it('a signal handler landing in the audit hook and walking the heap there is refused, and said', async () => {
    const g = await grade('signal-heap', {}, [], 'signal-heap');
    const repo = join(harness.scratch(), 'signal-heap', 'repo');
    // It landed in one of the hook's frames (the timer runs until it has) and was refused: inside
    // the hook as the code run there, or, landing in the hook's first bytecodes before it marks its
    // thread, as a walk with the patch's code (the handler) on the stack. Either way the walk never
    // came back, and the refusal is said.
    expect(existsSync(join(repo, 'reached.txt')), said(g)).toBe(false);
    const refused = existsSync(join(repo, 'refused.txt')) ? readFileSync(join(repo, 'refused.txt'), 'utf8') : '';
    expect(refused, said(g)).toMatch(/gc\.get_objects (inside the grading monitor|from code the patch changed) is refused/);
    if (/inside the grading monitor/.test(refused)) {
      expect(g.audit.join('\n'), said(g)).toMatch(/code run inside the monitor walked the heap \(refused\) \(gc\.get_objects\)/);
      expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    } else {
      expect(g.integrity.join('\n'), said(g)).toMatch(/the heap walked \(gc\.get_objects\)/);
    }
  }, 60_000);

  // A fourth attacker's (2026-12-04, on this session's boot), each 1 with no integrity flag before.
  it("attack M1, made records handed in through the recorder's own function: an integrity flag (it earned 1 before)", async () => {
    const g = await grade('attack-m1', {}, [], 'm1');
    expect(g.integrity.join('\n'), said(g)).toMatch(/a record of a kind the recorder does not write/);
  }, 60_000);

  it("attack RW2, a rewritten form of the hidden test file planted in pytest's cache: never read, the listed test fails (it earned 1 before)", async () => {
    const g = await grade('attack-rw2', {}, [], 'rw2');
    expect(g.statuses.get(LISTED), said(g)).toBe('FAILED');
    expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
  }, 60_000);

  it.each([
    ['TX1', 'tx1', 'a C callable handed to pluggy'],
    ['TX2', 'tx2', "a thread's target"],
    ['TX4', 'tx4', "the import system's own sourceless loader behind a finder of the patch's"],
  ])(
    'attack %s (%s), the hidden test module compiled again from an edited tree and executed by %s: not its trusted code (it earned 1 before)',
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      // The trick works in the run (pytest reports the listed test passing); the grader refuses it.
      expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
      expect(g.integrity.join('\n'), said(g)).toMatch(
        /the function run for a hidden test is not code its test file defines \(test_target\.py::test_add_listed\)/,
      );
      expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
    },
    60_000,
  );

  it("attack RT1, the listed item's own runtest set for its run only: an integrity flag (it earned 1 before)", async () => {
    const g = await grade('attack-rt1', {}, [], 'rt1');
    expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
    expect(g.integrity.join('\n'), said(g)).toMatch(/the code under test replaced the runtest of test_target\.py::test_add_listed/);
  }, 60_000);

  // RW1 in three forms: the rewriter, the parser or the compile changed (the last for one call
  // only, put back before the module's code runs). The code pytest runs for the hidden test file is
  // compared with what pytest's own rewriting made of the file before any repository code ran.
  it.each([
    ['RW1', 'rw1', "pytest's rewrite_asserts replaced to drop the listed test's asserts"],
    ['RW1b', 'rw1b', 'ast.parse wrapped to drop them from the tree pytest rewrites'],
    ['RW1c', 'rw1c', "compile shadowed in the rewriter's globals for one call, dropping the listed test's body"],
    ['RW3', 'rw3', "RW1c's compile giving the listed test an exception table that returns on any exception (a fifth attacker's)"],
  ])(
    'attack %s (%s): the hidden test module is not what pytest makes of its file, an integrity flag (it earned 1 before)',
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
      expect(g.integrity.join('\n'), said(g)).toMatch(/a hidden test file run as other code than its text makes/);
    },
    60_000,
  );

  // F1: the listed test run in a forked child that leaves by os._exit, so sends no end record; what
  // the boot saw in that process goes with each report it logs.
  it.each([
    ['F1', 'f1', "the item's own runtest", /the code under test replaced the runtest of test_target\.py::test_add_listed/],
    ['F1b', 'f1b', "pytest's Function.runtest", /_pytest\.python\.Function\.runtest/],
  ])(
    'attack %s (%s), the listed test run in a forked child with %s replaced: an integrity flag (it earned 1 before)',
    async (_id, fixture, _what, flagged) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
      expect(g.integrity.join('\n'), said(g)).toMatch(flagged);
    },
    60_000,
  );

  // SW1: the listed item swapped for one whose function comes from a file written while the tests
  // run (in a temporary folder; in the repository with its times set back; removed once imported).
  it.each([
    ['SW1', 'sw1'],
    ['SW1b', 'sw1b'],
    ['SW1c', 'sw1c'],
  ])(
    "attack %s (%s), the listed item's function from a file the run wrote: an integrity flag (it earned 1 before)",
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
      expect(g.integrity.join('\n'), said(g)).toMatch(/the function run for a hidden test is not code its test file defines/);
    },
    60_000,
  );

  it.each([
    ['E4b', 'e4b', 'a hook implementation made of C functions that pluggy runs'],
    ['E4c', 'e4c', "a weakref finalizer of C functions fired by the hidden test module's own import"],
  ])(
    'attack %s (%s), the heap walked by %s (no code of the patch on the stack): refused, the listed test does not pass (it earned 1 before)',
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.log + g.audit.join('\n'), said(g)).toMatch(/not called by the code running is refused|no code on the stack calls by name/);
      expect(g.statuses.get(LISTED), said(g)).not.toBe('PASSED');
    },
    60_000,
  );

  // The walk named by code that is no source file's: made from text or a compile, never imported.
  it.each([
    ['E4d', 'e4d', 'a function compiled under a pseudo-name that names gc.get_objects, never executed as a module'],
    ['E4e', 'e4e', 'text a partial of exec runs (nothing compiled by the patch)'],
    [
      'E4f',
      'e4f',
      "a function of a module the patch's install wrote (before the run, after the container's start), imported and called through C callables",
    ],
  ])(
    "attack %s (%s), E4c's walk named by %s: refused, the listed test does not pass (it earned 1 before)",
    async (_id, fixture) => {
      const g = await grade(`attack-${fixture}`, {}, [], fixture);
      expect(g.log + g.audit.join('\n'), said(g)).toMatch(/from code no source file holds is refused|no source file holds/);
      expect(g.statuses.get(LISTED), said(g)).not.toBe('PASSED');
    },
    60_000,
  );

  it("attack OBJ1b (a fifth attacker's), PyobjMixin.obj replaced to answer a passing function once the listed test's call phase starts (after the test-code check): an integrity flag (it earned 1 before)", async () => {
    const g = await grade('attack-obj1b', {}, [], 'obj1b');
    expect(g.log, said(g)).toMatch(/PASSED test_target\.py::test_add_listed/);
    expect(g.integrity.join('\n'), said(g)).toMatch(/_pytest\.python\.Function\.obj/);
  }, 60_000);

  it('attack XF1, xfail added to a PASS_TO_PASS test from pytest_itemcollected: an integrity flag (it earned 1 before)', async () => {
    const g = await grade('attack-xf1', {}, [], 'xf1');
    expect(g.statuses.get(LISTED), said(g)).toBe('XFAIL');
    expect(g.integrity.join('\n'), said(g)).toMatch(
      /pkg\/__init__\.py, changed by the patch, hooks into how pytest makes or reports outcomes/,
    );
  }, 60_000);

  // Its honest zeros: ordinary code the boot broke. Each a correct fix: the listed test passes, no integrity flag.
  it.each([
    ['a thread dump through sys._current_frames', 'honest-thread-dump', {}],
    ["a hidden test's own leak check, walking the heap by name", 'honest-leak-check', {}],
    ["the repository's conftest.py checking each test for leaks by walking the heap", 'honest-leak-conftest', {}],
    ["a repository helper module (not the fix's) walking the heap for a hidden test", 'honest-leak-helper', {}],
    ["pytest's assertion-pass hook turned on in the ini (other rewritten code for every test module)", 'honest-pass-hook', {}],
    ["the same hook turned on in pytest.toml (pytest 9's own file; a fifth attacker's honest zero)", 'honest-pass-hook-toml', {}],
    [
      "the repository's own autouse fixture counting os.write (a fifth attacker's honest zero: os.write was watched, though the channel writes through the boot's own)",
      'honest-os-write',
      {},
    ],
    ["the tests' own decorator of the package, written without functools.wraps, in the file the fix changes", 'honest-plain-decorator', {}],
    ["a sampling profiler thread reading every thread's frames", 'honest-sampler', {}],
    ['a SIGALRM heartbeat that logs (logging reads frames), landing inside the hook', 'honest-heartbeat', {}],
    [
      'a SIGALRM time budget whose handler raises, landing inside the hook while it writes a record',
      'honest-budget',
      Object.fromEntries(
        Array.from({ length: 3000 }, (_, i) => [
          `.git/objects/${(i % 256).toString(16).padStart(2, '0')}/${i.toString(16).padStart(38, '0')}`,
          'x',
        ]),
      ),
    ],
  ])(
    'honest: %s: scores',
    async (_what, fixture, files) => {
      const g = await grade(`honest-${fixture}`, files, [], fixture);
      expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
      expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
      expect(g.integrity, said(g)).toEqual([]);
    },
    90_000,
  );

  // OPEN (docs/grading.md, what remains possible): the fourth and fifth attackers' ways still open.
  // Each passes once the grader refuses it (the listed test failing, or an integrity flag).
  it.fails.each([['T1', 't1', "a tracer flipping the rewritten assertion's local"]])(
    'OPEN: attack %s (%s, %s) is refused',
    async (_id, fixture) => {
      const g = await grade(`open-${fixture}`, {}, [], fixture);
      const earned = g.statuses.get(LISTED) === 'PASSED' && g.statuses.get(CANARY) === 'FAILED' && g.integrity.length === 0;
      expect(earned, said(g)).toBe(false);
    },
    60_000,
  );

  it("attack SW2, the listed item's function compiled, never exec'd, under the hidden test file's own name from its lines: its file's code never returned (boot/swe_env_proof.py)", async () => {
    const g = await grade('attack-sw2', {}, [], 'sw2');
    expect(g.integrity.join('\n'), said(g)).toMatch(/never ran with pytest's arguments in its call/);
  }, 60_000);

  it.fails(
    'OPEN: a signal handler landing in the audit hook reaches nothing of the hook',
    async () => {
      await grade('signal-frame', {}, [], 'signal-frame');
      const reached = join(harness.scratch(), 'signal-frame', 'repo', 'reached.txt');
      expect(existsSync(reached) ? readFileSync(reached, 'utf8') : '').toBe('');
    },
    60_000,
  );

  it('a Python without audit hooks (before 3.8): the boot steps aside, takes no key and writes no channel', async () => {
    const dir = join(harness.scratch(), 'no-audit-hooks');
    mkdirSync(join(dir, 'g', 'boot'), { recursive: true });
    for (const [name, content] of BOOT_FILES) writeFileSync(join(dir, 'g', 'boot', name), content);
    writeFileSync(join(dir, 'g', 'key'), 'k'.repeat(64));
    const config = {
      key_file: join(dir, 'g', 'key'),
      out: join(dir, 'g', 'out'),
      guarded_dir: join(dir, 'g'),
      workdir: dir,
      runner: 'pytest',
    };
    writeFileSync(join(dir, 'g', 'config.json'), JSON.stringify(config));
    // sitecustomize as site would import it, on an interpreter whose sys has no addaudithook.
    const { stdout } = await run(
      harness.python(),
      [
        '-S',
        '-c',
        `import sys; del sys.addaudithook; sys.path.insert(0, ${JSON.stringify(join(dir, 'g', 'boot'))}); import sitecustomize; print("ran")`,
      ],
      {
        env: { ...process.env, SWE_ENV_BOOT_CONFIG: join(dir, 'g', 'config.json') },
      },
    );
    expect(stdout.trim()).toBe('ran');
    expect(existsSync(join(dir, 'g', 'key'))).toBe(true);
    expect(existsSync(join(dir, 'g', 'out'))).toBe(false);
  }, 60_000);

  it("a repository that asks for pytester with warnings as errors (pytest's own): scores (pytester_assertions was imported by the boot, pytest then could not rewrite it: an error)", async () => {
    const g = await grade('pytester', {
      'pkg/__init__.py': RIGHT,
      'pytest.ini': '[pytest]\naddopts = -p pytester\nfilterwarnings =\n    error\n',
    });
    expect(g.log, said(g)).not.toMatch(/cannot be rewritten/);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);

  it('a settings file in Latin-1 compiled under its own name: scores (its text was compared as UTF-8 bytes: an integrity flag); other text under its name is still one', async () => {
    const loader = (text: string): string =>
      `import os\n\n_here = os.path.dirname(os.path.abspath(__file__))\n\n\ndef _settings():\n    path = os.path.normpath(os.path.join(_here, "..", "settings", "defaults.py"))\n    ns = {}\n    with open(path, encoding="latin-1") as f:\n        exec(compile(${text}, path, "exec"), ns)\n    return ns\n\n\ndef add(a, b):\n    return a + b + _settings()["OFFSET"]\n`;
    const defaults = Buffer.from('# -*- coding: latin-1 -*-\nGREETING = "caf\u00e9"\nOFFSET = 0\n', 'latin1');
    const g = await grade('latin-1', { 'pkg/__init__.py': loader('f.read()'), 'settings/defaults.py': defaults });
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
    const twin = await grade('latin-1-twin', {
      'pkg/__init__.py': loader('f.read() + "\\nOFFSET = 0 * 7\\n"'),
      'settings/defaults.py': defaults,
    });
    expect(twin.integrity.join('\n'), said(twin)).toMatch(/code compiled under the name of a file that holds other code/);
  }, 60_000);

  it('flaky, running every test through its own call_and_report: no integrity flag (was outcome-not-made and runner-replaced)', async () => {
    const g = await grade('flaky', { 'pkg/__init__.py': RIGHT }, ['flaky.flaky_pytest_plugin']);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);

  it('pytest-forked, the listed test run in a child and its reports rebuilt by the parent: no integrity flag', async () => {
    const forked = TESTS.replace('def test_add_listed', '@pytest.mark.forked\ndef test_add_listed');
    const g = await grade('forked', { 'pkg/__init__.py': RIGHT, 'test_target.py': forked }, ['pytest_forked']);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
    // Its dishonest twin: the child's failing test, its report flipped in the parent by a hook of the package.
    const flipped = await grade(
      'forked-flipped',
      {
        'pkg/__init__.py': `${WRONG}\nimport _pytest.runner as _r\n_orig = _r.TestReport.__init__\n\n\ndef _init(self, *a, **k):\n    _orig(self, *a, **k)\n    if self.nodeid.endswith("test_add_listed") and self.outcome == "failed":\n        self.outcome = "passed"\n\n\n_r.TestReport.__init__ = _init\n`,
        'test_target.py': forked,
      },
      ['pytest_forked'],
    );
    expect(flipped.integrity.join('\n'), said(flipped)).not.toBe('');
  }, 60_000);

  it('pytest-xdist, the tests run by two workers: the honest fix scores, no integrity flag (every worker died before)', async () => {
    const g = await grade('xdist', { 'pkg/__init__.py': RIGHT }, ['xdist.plugin', 'xdist.looponfail'], undefined, ['-n', '2']);
    expect(g.log, said(g)).toMatch(/\[gw[01]\] PASSED test_target\.py::test_add_listed|PASSED test_target\.py::test_add_listed/);
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);

  it('pytest-rerunfailures, a test that passes on its rerun: no integrity flag (was two call reports)', async () => {
    const rerun = TESTS.replace(
      'def test_add_listed():\n',
      '@pytest.mark.flaky(reruns=2)\ndef test_add_listed():\n    assert first_use_fails()\n',
    ).replace('from pkg import add', 'from pkg import add, first_use_fails');
    const g = await grade(
      'rerun',
      {
        'pkg/__init__.py': `${RIGHT}\n_used = []\n\n\ndef first_use_fails():\n    _used.append(1)\n    return len(_used) > 1\n`,
        'test_target.py': rerun,
      },
      ['pytest_rerunfailures'],
    );
    expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
    expect(g.integrity, said(g)).toEqual([]);
  }, 60_000);
});
