import { describe, expect, it } from 'vitest';
import { changedLines } from '../../src/reward/diff-files.js';
import { gatherEvidence, type EvidenceInput } from '../../src/reward/grading/evidence.js';
import type { HookFunction, RecorderResult } from '../../src/reward/result-recorder.js';

/**
 * How the evidence judges an outcome hook in a file the patch changed, from what the boot read of
 * it (its defining lines and those of the functions of its file it reaches, the module globals
 * they read): the repository's own hook beside other changes is an audit finding; the hook, or
 * anything it rests on, changed by the patch is the integrity flag.
 */
const FILE = '/testbed/pkg/plugin.py';
const HOOK = 'def pytest_collection_modifyitems(items):\n    items.sort(key=_order)';
const ORDER = 'def _order(item):\n    return item.name';
const PRISTINE = `import os\n\n\n${ORDER}\n\n\n${HOOK}\n\n\ndef other():\n    return 1\n`;

function judge(hooks: HookFunction[], changed: string[] | undefined, extra: Partial<EvidenceInput> = {}): string[] {
  const channel: RecorderResult = {
    statuses: new Map(),
    end: { exitStatus: 0, tampered: [], hookPlugins: hooks, runtestReplaced: [] },
    started: true,
    problems: [],
    events: [],
  };
  const evidence = gatherEvidence({
    logResults: new Map(),
    channel,
    pytest: true,
    canaries: [],
    family: 'pytest',
    exitCode: 0,
    timedOut: false,
    agentPaths: new Set([FILE]),
    taskPaths: new Set(),
    pristineTexts: new Map([[FILE, PRISTINE]]),
    changed: () => changed,
    ...extra,
  });
  return evidence.flags.map((f) => f.kind);
}

const reach = { sources: [HOOK, ORDER], names: ['_order'] };

describe('an outcome hook in a file the patch changed', () => {
  it('defined as in the pristine file, with what it reads untouched: the audit finding', () => {
    expect(judge([{ file: FILE, reach }], ['def other():', '    return 2'])).toEqual(['pristine-hook-in-changed-file']);
  });

  it('a changed line naming a global the hook reads: the integrity flag', () => {
    expect(judge([{ file: FILE, reach }], ['_order = lambda item: 0'])).toEqual(['outcome-hook']);
  });

  it('a global its default was read from (the boot names it) on a changed line: the integrity flag', () => {
    const withDefault = 'def pytest_collection_modifyitems(items, _key=_KEY):\n    items.sort(key=_key)';
    const pristine = PRISTINE.replace(HOOK, withDefault);
    expect(
      judge([{ file: FILE, reach: { sources: [withDefault], names: ['_KEY'] } }], ['_KEY = None'], {
        pristineTexts: new Map([[FILE, pristine]]),
      }),
    ).toEqual(['outcome-hook']);
  });

  it('a hook, or a function it reaches, whose lines the pristine file does not hold: the integrity flag', () => {
    const changedOrder = 'def _order(item):\n    return 0';
    expect(judge([{ file: FILE, reach: { sources: [HOOK, changedOrder], names: ['_order'] } }], [])).toEqual(['outcome-hook']);
  });

  it('what the boot could not read, a patch whose lines are unknown, no pristine file: the integrity flag', () => {
    expect(judge([{ file: FILE }], [])).toEqual(['outcome-hook']);
    expect(judge([{ file: FILE, reach }], undefined)).toEqual(['outcome-hook']);
    expect(judge([{ file: FILE, reach }], [], { pristineTexts: new Map() })).toEqual(['outcome-hook']);
    expect(judge([{ file: FILE, reach }, { file: FILE }], [])).toEqual(['outcome-hook']);
  });

  it("a file the task's fix changes too is the audit finding it was; a file of no patch, none; a hook of no file, the flag", () => {
    expect(judge([{ file: FILE }], [], { taskPaths: new Set([FILE]) })).toEqual(['runner-hook-in-task-file']);
    expect(judge([{ file: '/testbed/pkg/pristine.py' }], [])).toEqual([]);
    expect(judge([{ file: '<no file> /usr/lib/x.py' }], [])).toEqual(['outcome-hook']);
  });
});

describe('the lines a patch changes in a file', () => {
  const diff = [
    'diff --git a/pkg/plugin.py b/pkg/plugin.py',
    'index 1..2 100644',
    '--- a/pkg/plugin.py',
    '+++ b/pkg/plugin.py',
    '@@ -1,3 +1,3 @@',
    ' context',
    '-old line',
    '+new line',
    '--- a removed line starting with dashes',
    'diff --git a/pkg/other.py b/pkg/other.py',
    '--- a/pkg/other.py',
    '+++ b/pkg/other.py',
    '@@ -1 +1 @@',
    '-a',
    '+b',
    '',
  ].join('\n');

  it("are the hunks' + and - lines of that file's section only, and unknown without one", () => {
    expect(changedLines(diff, 'pkg/plugin.py')).toEqual(['old line', 'new line', '-- a removed line starting with dashes']);
    expect(changedLines(diff, 'pkg/other.py')).toEqual(['a', 'b']);
    expect(changedLines('--- a/pkg/plugin.py\n+++ b/pkg/plugin.py\n@@ -1 +1 @@\n-a\n+b\n', 'pkg/plugin.py')).toBeUndefined();
  });
});
