import { REPORTER_CANARY_PREFIX, type ReporterCanary, type ResultReporter } from '../language.js';
import type { StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * jasmine's own runner (the `jasmine` command of jasmine-npm 3.x to 5.x) prints nothing for a
 * passing spec: its harness parser (parse_log_marked) reads the numbered failures only, and the
 * harness counts a listed spec absent from the log as passed. swe-env attaches a reporter of its
 * own with `--require=` (loaded before the configuration's helpers and the specs, so before any
 * repository code), which prints one line per finished spec. The default reporter still prints
 * what the harness reads.
 *
 * It also declares the grading's canaries (a must-pass and two must-fail specs named from the listed
 * specs' words, one checking through `expect`, one through `expectAsync` where jasmine has it): a
 * change that makes every expectation of either kind hold (a stubbed `expect` or `expectAsync`, a
 * patched built-in matcher) or every spec pass turns a must-fail one round.
 *
 * The lines carry a per-grading token the reporter reads from a file it removes at once, so text
 * the code under test prints cannot pass for them unless it reads the token out of the reporter's
 * memory; they are written through the `fs.writeSync` the reporter took before the repository's
 * code ran, so replacing `process.stdout.write` does not rewrite them, and only while descriptor 1
 * is still the output it was then.
 */
const LINE = /^swe-env-jasmine (\S+) (\w+) (".*")$/;

const STATUS: Readonly<Record<string, TestStatus>> = {
  passed: 'PASSED',
  failed: 'FAILED',
  pending: 'SKIPPED',
  excluded: 'SKIPPED',
};

/** The `jasmine` command itself (a path ending in it, or the bare name), not a word containing it. */
const JASMINE_COMMAND = /(^|[\s;&|(])((?:[\w./-]*\/)?jasmine)(?=\s|$)/m;

function moduleText(planFile: string): string {
  return [
    "'use strict';",
    "const fs = require('fs');",
    'const writeSync = fs.writeSync;',
    // What emitting a line calls, taken before the repository's code runs: a replaced Buffer.from,
    // Buffer.prototype.subarray, JSON.stringify or Map.prototype.get would read the token in the
    // line, or rewrite a listed spec's status on its way out.
    'const apply = Reflect.apply;',
    'const toBuffer = Buffer.from;',
    'const subarray = Buffer.prototype.subarray;',
    'const stringify = JSON.stringify;',
    'const mapGet = Map.prototype.get;',
    // What descriptor 1 is at load (a pipe's name, a string): code that closes it and reopens it on
    // a file of its own would read the token in the lines and pass them on rewritten. A line goes
    // out only while descriptor 1 is still what it was.
    'const readlink = fs.readlinkSync;',
    'const output = () => { try { return readlink("/proc/self/fd/1"); } catch (error) { return undefined; } };',
    'const stdout = output();',
    `const planFile = ${JSON.stringify(planFile)};`,
    "let plan = { token: '', canaries: [] };",
    'try {',
    "  plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));",
    '  fs.unlinkSync(planFile);',
    '} catch (error) {',
    '  // Without its plan the reporter prints nothing the grader reads: every listed spec reads as missing.',
    '}',
    'function emit(text) {',
    '  if (output() !== stdout) return;',
    '  let buffer = apply(toBuffer, Buffer, [text]);',
    '  while (buffer.length > 0) {',
    '    try {',
    '      buffer = apply(subarray, buffer, [writeSync(1, buffer)]);',
    '    } catch (error) {',
    "      if (error.code !== 'EAGAIN') return;",
    '    }',
    '  }',
    '}',
    // A run that stops at its first failing spec (jasmine.json's stopOnSpecFailure, 3.x's failFast,
    // --fail-fast) would leave every spec after the must-fail canary, or after any failing spec,
    // unreported: each listed spec is read from its own line, so every spec runs.
    'const env = jasmine.getEnv();',
    "const stops = typeof env.configuration === 'function' ? env.configuration() : {};",
    "['stopOnSpecFailure', 'failFast'].forEach((key) => { if (stops[key] === true) env.configure({ [key]: false }); });",
    'const canaries = new Map();',
    'plan.canaries.forEach((canary, i) => {',
    '  describe(canary.suite, () => {',
    '    const spec = it(canary.name, () => {',
    '      const sum = canary.values.reduce((total, value) => total + value, 0);',
    // toBeResolved is jasmine-core's since 3.3 (expectAsync's first release); before it, expect.
    "      if (canary.async && typeof expectAsync === 'function')",
    "        return expectAsync(sum === canary.expected ? Promise.resolve() : Promise.reject(new Error('sum'))).toBeResolved();",
    '      expect(sum).toBe(canary.expected);',
    '    });',
    `    canaries.set(spec.id, ${JSON.stringify(REPORTER_CANARY_PREFIX)} + i);`,
    '  });',
    '});',
    'env.addReporter({',
    '  specDone(result) {',
    '    const name = apply(mapGet, canaries, [result.id]) ?? result.fullName;',
    // The leading newline: the default reporter prints a dot per spec with none.
    "    emit('\\nswe-env-jasmine ' + plan.token + ' ' + result.status + ' ' + stringify(name) + '\\n');",
    '  },',
    '});',
    '',
  ].join('\n');
}

const planText = (token: string, canaries: readonly ReporterCanary[]): string => JSON.stringify({ token, canaries });

function parse(log: string, token: string): StatusMap {
  const results: StatusMap = new Map();
  for (const line of log.split('\n')) {
    const match = LINE.exec(line.trimEnd());
    if (!match || match[1] !== token) continue;
    let name: unknown;
    try {
      name = JSON.parse(match[3]!);
    } catch {
      continue;
    }
    if (typeof name !== 'string') continue;
    const status = STATUS[match[2]!] ?? 'FAILED';
    // Two specs of one full name: the name passes only if both did.
    const earlier = results.get(name);
    results.set(name, earlier !== undefined && earlier !== 'PASSED' ? earlier : status);
  }
  return results;
}

export const JASMINE_REPORTER: ResultReporter = {
  runner: 'jasmine',
  parsers: ['parse_log_marked'],
  attachesTo: (testCommand) => JASMINE_COMMAND.test(testCommand),
  // A name filter would leave the canaries out. (A run told to stop at its first failing spec, by
  // the command or jasmine.json, runs on: the module turns that off before any spec is declared;
  // the options named here still go without canaries, as before.)
  runsDeclared: (testCommand) => !/--filter\b|--fail-fast=true\b|--stop-on-failure=true\b/.test(testCommand),
  // jasmine-npm before 3.2 has no --require (it reads `--require=...` as an environment variable
  // and goes on): there the module loads as the last helper, after the configuration's. Where both
  // load it, the module cache runs it once.
  attach: (testCommand, modulePath) =>
    testCommand.replace(
      JASMINE_COMMAND,
      (_, before: string, command: string) => `${before}${command} --require=${modulePath} --helper=${modulePath}`,
    ),
  moduleFile: 'swe-env-reporter.js',
  moduleText,
  planText,
  parse,
};
