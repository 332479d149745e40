import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { harnessParse, languageOf, languageParserNames, UNREGISTERED_PARSERS, type HarnessSpec } from '../../src/languages/index.js';
import { runPythonJsonLines } from '../helpers/python-env.js';

/**
 * swebench 5.x's parsers for C/C++, Go, Java, JavaScript, PHP, Ruby and Rust, ported to
 * TypeScript (src/languages/<language>/harness-parsers.ts), beside the installed harness's own functions: every
 * parser on every log under test/fixtures/harness-logs (real output of cargo, googletest, doctest,
 * minitest, test-unit, rspec, phpunit, jest, vitest, mocha, karma, node's TAP, maven; hand-written
 * shapes for the rest and for the quirks: colours, interleaving, repeated names, "\r", non-ASCII
 * whitespace) gives the same status map, or both raise. The parsers that read the instance run
 * under several ids and versions. One Python process answers every case.
 */
const LOGS = join(packageRoot(), 'test', 'fixtures', 'harness-logs');

function logFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? logFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

const logs = logFiles(LOGS).map((path) => ({ name: relative(LOGS, path), log: readFileSync(path, 'utf8') }));

/** The instances and versions the choosing parsers are run under: each branch, and an unknown one. */
const SPECS: Readonly<Record<string, readonly HarnessSpec[]>> = {
  parse_log_jekyll: [
    { instanceId: 'jekyll__jekyll-9141' },
    { instanceId: 'jekyll__jekyll-8761' },
    { instanceId: 'jekyll__jekyll-1' },
    { instanceId: 'jekyll' },
  ],
  parse_log_immutable_js: [
    { instanceId: 'immutable-js__immutable-js-2006' },
    { instanceId: 'immutable-js__immutable-js-2005' },
    { instanceId: 'x-1' },
  ],
  parse_log_next: [{ version: '1.27' }, { version: '1.25' }],
  parse_log_lighthouse: [
    { version: '9.5' },
    { version: '10.2' },
    { version: '3.1' },
    { version: '2.4' },
    { version: ' 1_2 ' },
    { version: 'nan' },
    { version: 'x' },
  ],
};

const registered = languageParserNames();
const parsers = [...registered, ...Object.keys(UNREGISTERED_PARSERS)];
const cases = logs.flatMap(({ name, log }) =>
  parsers.flatMap((parser) => (SPECS[parser] ?? [{}]).map((spec) => ({ name, parser, spec, log }))),
);

function ours(parser: string, log: string, spec: HarnessSpec): Record<string, string> {
  const unregistered = UNREGISTERED_PARSERS[parser];
  return Object.fromEntries(unregistered ? unregistered(log, spec) : harnessParse(parser, log, '5', spec));
}

let official: Array<{ map?: Record<string, string>; error?: string }> = [];

beforeAll(async () => {
  const input = cases.map(({ parser, log, spec }) => ({ parser, log, instance_id: spec.instanceId, version: spec.version }));
  official = (await runPythonJsonLines('test/conformance/harness_parse_langs.py', input)) as typeof official;
}, 120_000);

describe('harness 5.x parsers for other languages', () => {
  it(`agree with the installed harness on ${logs.length} logs x ${parsers.length} parsers`, () => {
    expect(official.length).toBe(cases.length);
    const mismatches: string[] = [];
    cases.forEach(({ name, parser, spec, log }, i) => {
      const theirs = official[i]!;
      const label = `${parser}${Object.keys(spec).length ? ` ${JSON.stringify(spec)}` : ''} on ${name}`;
      let mine: Record<string, string> | undefined;
      let error: string | undefined;
      try {
        mine = ours(parser, log, spec);
      } catch (e) {
        error = String(e);
      }
      if (theirs.error !== undefined || error !== undefined) {
        if ((theirs.error === undefined) !== (error === undefined))
          mismatches.push(`${label}: ours ${error ?? 'parsed'} vs harness ${theirs.error ?? 'parsed'}`);
        return;
      }
      if (JSON.stringify(Object.entries(mine!).sort()) !== JSON.stringify(Object.entries(theirs.map!).sort())) {
        mismatches.push(`${label}: ours ${JSON.stringify(mine)} vs harness ${JSON.stringify(theirs.map)}`);
      }
    });
    expect(mismatches).toEqual([]);
  });

  it("reads something from each language's own real logs (the fixtures exercise the parsers)", () => {
    const read = new Set<string>();
    cases.forEach(({ parser, name }, i) => {
      if (Object.keys(official[i]?.map ?? {}).length > 0 && name.split('/')[0] === languageOf(parser)) read.add(parser);
    });
    expect(registered.filter((p) => !read.has(p))).toEqual([]);
  });
});
