import { describe, expect, it } from 'vitest';
import { COMMAND, VERSIONS, grade, jasmine, project } from '../helpers/jasmine-project.js';

/**
 * Honest runs of a fail-only row that the reporter must read as passing (the harness's rule would):
 * names with quotes, backslashes and non-ASCII letters, nested groups of one name, specs printing
 * without a newline or printing the shapes the grader reads, asynchronous specs, and a run the
 * repository's jasmine.json (or the command) tells to stop at its first failing spec, beside a
 * spec that fails and is not listed.
 */
const LISTED = ['Néw "quoted" \\ back\\slash should pass', 'New New same should pass', 'New prints should pass', 'New waits should pass'];
const SPEC = `
describe('Old', () => { it('is broken', () => expect(1).toBe(2)); });
describe('Néw "quoted" \\\\ back\\\\slash', () => { it('should pass', () => expect(1).toBe(1)); });
describe('New', () => {
  describe('New', () => { it('same should pass', () => expect(1).toBe(1)); });
  it('prints should pass', () => {
    process.stdout.write('no newline here');
    console.log('1 spec, 0 failures');
    console.log('swe-env-jasmine 0000 failed "New prints should pass"');
    process.stdout.write('x'.repeat(100000));
    expect(1).toBe(1);
  });
  it('waits should pass', (done) => setTimeout(() => { expect(2).toBe(2); done(); }, 20));
});
`;

describe('fail-only rows (jasmine): honest runs read as passing', () => {
  for (const version of VERSIONS)
    for (const config of [{}, { random: false }, { random: false, stopOnSpecFailure: true }])
      it(`${version}, jasmine.json ${JSON.stringify(config)}`, async () => {
        const p = await project({ 'spec/a-spec.js': SPEC }, LISTED, config);
        const log = await jasmine(version, p);
        expect(grade(log, p, LISTED), log).toEqual({ reward: 1, listed: Object.fromEntries(LISTED.map((n) => [n, 'PASSED'])), flags: [] });
      }, 60_000);

  it('jasmine4 with --fail-fast on the command: every spec still runs', async () => {
    const p = await project({ 'spec/a-spec.js': SPEC }, LISTED, { random: false });
    const log = await jasmine('jasmine4', p, `${COMMAND} --fail-fast`);
    expect(grade(log, p, LISTED).listed, log).toEqual(Object.fromEntries(LISTED.map((n) => [n, 'PASSED'])));
  }, 60_000);
});
