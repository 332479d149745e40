import { describe, expect, it } from 'vitest';
import { errorExcerpt, runFailure } from '../../src/reward/run-failure.js';

const missing = [{ name: 'tests/test_a.py::test_a', status: 'MISSING' as const }];

describe('runFailure', () => {
  it('explains only a failed run that never reached the listed tests or ended before pytest did', () => {
    const log = 'bash: line 2: pytset: command not found\n';
    expect(runFailure({ log, exitCode: 127, timedOut: false, listed: missing, channelProblems: [] })).toBe(
      'the tests did not run: the test command exited with 127 before any listed test ran; its output says:\nbash: line 2: pytset: command not found',
    );
    expect(runFailure({ log, exitCode: 0, timedOut: false, listed: missing, channelProblems: [] })).toBeUndefined();
    expect(runFailure({ log, exitCode: 124, timedOut: true, listed: missing, channelProblems: [] })).toBeUndefined();
    const ran = [{ name: 'tests/test_a.py::test_a', status: 'FAILED' as const }];
    expect(runFailure({ log, exitCode: 1, timedOut: false, listed: ran, channelProblems: [] })).toBeUndefined();
    expect(
      runFailure({
        log,
        exitCode: 1,
        timedOut: false,
        listed: ran,
        channelProblems: ['the session never finished: the process ended before pytest did'],
      }),
    ).toMatch(/before pytest finished/);
    expect(
      runFailure({
        log,
        exitCode: 1,
        timedOut: false,
        listed: [{ name: 'tests/font.test.js', status: 'FAILED' as const }],
        channelProblems: ['the monitor never started in the test run'],
      }),
    ).toBeUndefined();
  });
});

describe('errorExcerpt', () => {
  it("takes the collection error's header and exception lines, not pytest's own frames", () => {
    const log = [
      '==================================== ERRORS ====================================',
      '____________________ ERROR collecting tests/test_broken.py _____________________',
      "ImportError while importing test module '/testbed/tests/test_broken.py'.",
      'Hint: make sure your test modules/packages have valid Python names.',
      'Traceback:',
      '/usr/lib/python3.11/importlib/__init__.py:126: in import_module',
      '    return _bootstrap._gcd_import(name[level:], package, level)',
      'tests/test_broken.py:1: in <module>',
      '    import yaml',
      "E   ModuleNotFoundError: No module named 'yaml'",
      '=========================== short test summary info ============================',
    ].join('\n');
    expect(errorExcerpt(log)).toBe(
      [
        '____________________ ERROR collecting tests/test_broken.py _____________________',
        "ImportError while importing test module '/testbed/tests/test_broken.py'.",
        '...',
        'tests/test_broken.py:1: in <module>',
        '    import yaml',
        "E   ModuleNotFoundError: No module named 'yaml'",
      ].join('\n'),
    );
  });

  it('takes a traceback up to its exception, cutting a long middle', () => {
    const frames = Array.from({ length: 30 }, (_, i) => `  File "/x${i}.py", line 1, in f`);
    const text = errorExcerpt(['noise', 'Traceback (most recent call last):', ...frames, 'RuntimeError: boom', 'after'].join('\n'));
    const lines = text.split('\n');
    expect(lines[0]).toBe('Traceback (most recent call last):');
    expect(lines[1]).toBe('  ...');
    expect(lines.at(-1)).toBe('RuntimeError: boom');
    expect(lines.length).toBeLessThanOrEqual(14);
  });

  it('falls back to the last lines of the output', () => {
    expect(errorExcerpt('one\ntwo\n\nthree\n')).toBe('one\ntwo\nthree');
  });
});
