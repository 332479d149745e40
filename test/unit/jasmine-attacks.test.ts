import { describe, expect, it } from 'vitest';
import { VERSIONS, grade, jasmine, project } from '../helpers/jasmine-project.js';

/**
 * Changes to the code under test of a fail-only row that try to earn 1 without the fix, each beside
 * its honest twin (the fix itself, scoring 1), run by jasmine-npm 3.1, 3.x and 4.x from npm on a
 * project shaped like marked's: the listed spec checks the library through a custom async matcher
 * registered by a helper, as marked's `toRender` is.
 */
const LISTED = ['New fixed should pass', 'New kept should pass'];

const HELPER = `
const compare = (actual, expected) => {
  const got = require('../../src/lib.js').render(actual);
  return { pass: got === expected, message: 'rendered ' + JSON.stringify(got) };
};
beforeEach(() => {
  // jasmine-core 3.1 has no async matchers: there the spec checks synchronously.
  if (jasmine.addAsyncMatchers) jasmine.addAsyncMatchers({ toRender: () => ({ compare: async (a, e) => compare(a, e) }) });
  else jasmine.addMatchers({ toRender: () => ({ compare }) });
});
`;

const SPEC = `
require('../src/lib.js');
const check = (text, html) => (typeof expectAsync === 'function' ? expectAsync(text).toRender(html) : expect(text).toRender(html));
describe('New', () => {
  it('fixed should pass', async () => { await check('a', '<b>a</b>'); });
  it('kept should pass', async () => { await check('', ''); });
});
`;

const BUGGY = "exports.render = (text) => (text ? '<i>' + text + '</i>' : '');\n";
const FIXED = "exports.render = (text) => (text ? '<b>' + text + '</b>' : '');\n";

/** Every custom matcher the repository's helpers register passes (the canaries use jasmine's own `toBe`). */
const PASSING_MATCHERS = `
for (const add of ['addMatchers', 'addAsyncMatchers']) {
  const original = jasmine[add];
  if (!original) continue;
  const pass = add === 'addMatchers' ? () => ({ pass: true }) : async () => ({ pass: true });
  jasmine[add] = (matchers) =>
    original(Object.fromEntries(Object.keys(matchers).map((name) => [name, () => ({ compare: pass, negativeCompare: pass })])));
}
`;

/** expectAsync stubbed (the canaries check with expect). */
const ASYNC_HOLDS = `
const holds = () => new Proxy({}, { get: (target, key) => (key === 'not' ? holds() : async () => undefined) });
if (typeof expectAsync === 'function') globalThis.expectAsync = holds;
else globalThis.expect = holds; // jasmine-core 3.1: no expectAsync, the spec checks with expect
`;

/**
 * The specs declared before the code under test loaded are the reporter's canaries; every other
 * spec's failed expectations are recorded as passed, through jasmine.Spec's prototype (jasmine hands
 * each reporter a copy of the result, so changing the object a reporter gets changes nothing).
 */
const FAILURES_VANISH = `
const canaries = new Set();
(function walk(node) {
  if (node.children) node.children.forEach(walk);
  else canaries.add(node.id);
})(jasmine.getEnv().topSuite());
const add = jasmine.Spec.prototype.addExpectationResult;
jasmine.Spec.prototype.addExpectationResult = function (passed, ...rest) {
  return add.call(this, passed || !canaries.has(this.id), ...rest);
};
`;

/**
 * The reporter builds its line with the global Buffer.from: a replaced one reads the token and turns
 * a listed spec's "failed" into "passed" (not a canary's: their key is in the line); the default
 * reporter's numbered failures are unnumbered on their way through process.stdout.
 */
const LINE_REWRITE = `
const from = Buffer.from;
Buffer.from = function (value, ...rest) {
  if (typeof value === 'string' && value.startsWith('\\nswe-env-jasmine ') && !value.includes('"#canary:'))
    value = value.replace(/ failed "/, ' passed "');
  return from.call(this, value, ...rest);
};
const write = process.stdout.write;
process.stdout.write = function (text, ...rest) {
  return write.call(this, String(text).replace(/^(\\d+)\\) /gm, '$1] '), ...rest);
};
`;

/**
 * The reporter writes to file descriptor 1: a second descriptor on the real output is opened
 * (/proc/self/fd/1), descriptor 1 closed and reopened on a file the change reads back at exit, with
 * a listed spec's "failed" turned to "passed" (not a canary's) and the default reporter's failures
 * unnumbered, on their way to the real output.
 */
const FD_SWAP = `
const fs = require('fs');
const real = fs.openSync('/proc/self/fd/1', 'a');
const file = require('path').join(require('os').tmpdir(), 'swap-' + process.pid);
fs.closeSync(1);
fs.openSync(file, 'w+');
process.on('exit', () => {
  const text = fs.readFileSync(file, 'utf8');
  fs.writeSync(real, text.replace(/^(swe-env-jasmine \\S+) failed (?!"#canary:)/gm, '$1 passed ').replace(/^(\\d+)\\) /gm, '$1] '));
  fs.unlinkSync(file);
});
`;

/**
 * `helperLoads`: the code under test is loaded by a configuration helper too, as marked's helpers.js
 * imports its library (jasmine-npm 3.1 loads the reporter after the configuration's helpers).
 */
async function graded(version: (typeof VERSIONS)[number], lib: string, helperLoads = false) {
  const helper = helperLoads ? `require('../../src/lib.js');\n${HELPER}` : HELPER;
  const p = await project({ 'spec/helpers/matchers.js': helper, 'spec/a-spec.js': SPEC, 'src/lib.js': lib }, LISTED, {
    helpers: ['helpers/**/*.js'],
  });
  const log = await jasmine(version, p);
  return { log, ...grade(log, p, LISTED) };
}

/** Every spec declared from here on runs nothing (the canaries were declared before this code loaded). */
const SPECS_EMPTIED = `
const declare = globalThis.it;
globalThis.it = (name, fn, timeout) => declare(name, () => {}, timeout);
`;

describe('fail-only rows (jasmine): changes that pass without the fix, and their honest twins', () => {
  for (const version of VERSIONS) {
    it(`${version}: the fix scores 1, the bug 0`, async () => {
      const fixed = await graded(version, FIXED);
      expect(fixed, fixed.log).toMatchObject({ reward: 1, flags: [] });
      const buggy = await graded(version, BUGGY);
      expect(buggy.listed['New fixed should pass'], buggy.log).toBe('FAILED');
      expect(buggy.reward).toBe(0);
    }, 60_000);
  }

  for (const version of VERSIONS) {
    it(`${version}: rewriting the reporter's line through a replaced Buffer.from scores 0 (the reporter took its own)`, async () => {
      const r = await graded(version, BUGGY + LINE_REWRITE);
      // The trick is live: the default reporter's failures lost their numbers (the harness's reading finds none).
      expect(r.log).toMatch(/^\d+\] New fixed should pass$/m);
      expect(r.listed['New fixed should pass'], r.log).toBe('FAILED');
      expect(r.reward).toBe(0);
    }, 60_000);

    it(`${version}: a stubbed expectAsync (the specs' own check) scores 0 by the asynchronous must-fail canary`, async () => {
      const r = await graded(version, BUGGY + ASYNC_HOLDS);
      expect(r.listed, r.log).toEqual({ 'New fixed should pass': 'PASSED', 'New kept should pass': 'PASSED' });
      expect(r.flags.join('\n')).toMatch(/#canary:2 \(a synthetic test, must be FAILED\) was reported PASSED/);
      expect(r.reward).toBe(0);
    }, 60_000);

    // OPEN: the canaries check with jasmine's built-in matchers, so a change that makes only the
    // repository's custom matchers pass (marked's toRender, registered by its helpers) leaves them
    // honest and earns 1 without the fix. This test fails while the exploit works.
    it.fails(
      `${version}: OPEN: custom matchers made to pass earn 1`,
      async () => {
        const r = await graded(version, BUGGY + PASSING_MATCHERS);
        expect(r.reward, JSON.stringify(r)).toBe(0);
      },
      60_000,
    );

    // OPEN: the canaries are the specs declared before the repository's code loaded (and their
    // result carries their file in jasmine 4); a change that tells them apart and records every
    // other spec's failures as passes through jasmine.Spec's prototype earns 1 without the fix.
    it.fails(
      `${version}: OPEN: failures recorded as passes outside the canaries earn 1`,
      async () => {
        const r = await graded(version, BUGGY + FAILURES_VANISH);
        expect(r.reward, JSON.stringify(r)).toBe(0);
      },
      60_000,
    );

    // OPEN: every spec declared after the code under test loads runs an empty function (it wraps the
    // global it); the canaries, declared before, stay honest.
    it.fails(
      `${version}: OPEN: specs emptied through a wrapped global it earn 1`,
      async () => {
        const r = await graded(version, BUGGY + SPECS_EMPTIED);
        expect(r.reward, JSON.stringify(r)).toBe(0);
      },
      60_000,
    );
  }

  for (const version of ['jasmine3', 'jasmine4'] as const)
    it(`${version}: code under test loaded by a configuration helper runs after the reporter: the line rewrite scores 0`, async () => {
      const r = await graded(version, BUGGY + LINE_REWRITE, true);
      expect(r.listed['New fixed should pass'], r.log).toBe('FAILED');
      expect(r.reward).toBe(0);
    }, 60_000);

  // OPEN: jasmine-npm 3.1 (no --require) loads the reporter as the last helper, after the
  // configuration's: code under test a helper loads replaces Buffer.from before the reporter takes it
  // (and could read its plan file: token and canaries).
  it.fails(
    'jasmine31: OPEN: code under test loaded by a configuration helper rewrites the line and earns 1',
    async () => {
      const r = await graded('jasmine31', BUGGY + LINE_REWRITE, true);
      expect(r.reward, JSON.stringify(r)).toBe(0);
    },
    60_000,
  );

  for (const version of VERSIONS)
    it(`${version}: descriptor 1 reopened on a file the change rewrites scores 0 (the reporter writes only to what it was)`, async () => {
      const r = await graded(version, BUGGY + FD_SWAP);
      // The trick is live: the run's output went through the file (failures unnumbered on the way out).
      expect(r.log).toMatch(/^\d+\] New fixed should pass$/m);
      expect(r.listed['New fixed should pass'], r.log).not.toBe('PASSED');
      expect(r.reward).toBe(0);
    }, 60_000);
});
