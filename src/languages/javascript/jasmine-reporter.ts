import type { ResultReporter } from '../language.js';
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
 * The lines carry a per-grading token the reporter reads from a file it removes at once, so text
 * the code under test prints cannot pass for them unless it reads the token out of the reporter's
 * memory; they are written through the `fs.writeSync` the reporter took before the repository's
 * code ran, so replacing `process.stdout.write` does not rewrite them.
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

function moduleText(tokenFile: string): string {
  return [
    "'use strict';",
    "const fs = require('fs');",
    'const writeSync = fs.writeSync;',
    `const tokenFile = ${JSON.stringify(tokenFile)};`,
    "let token = '';",
    'try {',
    "  token = fs.readFileSync(tokenFile, 'utf8').trim();",
    '  fs.unlinkSync(tokenFile);',
    '} catch (error) {',
    '  // Without its token the reporter prints nothing the grader reads: every listed spec reads as missing.',
    '}',
    'function emit(text) {',
    '  let buffer = Buffer.from(text);',
    '  while (buffer.length > 0) {',
    '    try {',
    '      buffer = buffer.subarray(writeSync(1, buffer));',
    '    } catch (error) {',
    "      if (error.code !== 'EAGAIN') return;",
    '    }',
    '  }',
    '}',
    'jasmine.getEnv().addReporter({',
    '  specDone(result) {',
    // The leading newline: the default reporter prints a dot per spec with none.
    "    emit('\\nswe-env-jasmine ' + token + ' ' + result.status + ' ' + JSON.stringify(result.fullName) + '\\n');",
    '  },',
    '});',
    '',
  ].join('\n');
}

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
  attach: (testCommand, modulePath) =>
    testCommand.replace(JASMINE_COMMAND, (_, before: string, command: string) => `${before}${command} --require=${modulePath}`),
  moduleFile: 'swe-env-reporter.js',
  moduleText,
  parse,
};
