import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/reward/test-status.js';
import { decideVerdict } from '../../src/reward/verdict.js';

const map = (entries: Record<string, TestStatus>) => new Map(Object.entries(entries));

describe('decideVerdict', () => {
  it('resolves when every F2P and P2P test passed', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED', b: 'PASSED' }), failToPass: ['a'], passToPass: ['b'], exitCode: 0 });
    expect(v).toMatchObject({ resolved: true, resolution: 'FULL' });
  });

  it('does not count XFAIL or SKIPPED as a passing FAIL_TO_PASS test', () => {
    for (const status of ['XFAIL', 'SKIPPED', 'XPASS'] as const) {
      const v = decideVerdict({ results: map({ a: status }), failToPass: ['a'], passToPass: [], exitCode: 0 });
      expect(v.resolved).toBe(false);
    }
  });

  it('fails a listed test missing from the log', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED' }), failToPass: ['a'], passToPass: ['gone'], exitCode: 0 });
    expect(v.resolved).toBe(false);
    expect(v.passToPass[0]).toEqual({ name: 'gone', status: 'MISSING' });
  });

  it('is PARTIAL when some F2P pass and all P2P pass', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED', b: 'FAILED', c: 'PASSED' }), failToPass: ['a', 'b'], passToPass: ['c'], exitCode: 1 });
    expect(v.resolution).toBe('PARTIAL');
    expect(v.resolved).toBe(false);
  });

  it('rejects a log that says all passed from a run that exited non-zero', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED' }), failToPass: ['a'], passToPass: [], exitCode: 1 });
    expect(v.resolved).toBe(false);
    expect(v.rejection).toMatch(/not trusted/);
  });

  it('accepts a non-zero exit when tests outside the lists failed', () => {
    const v = decideVerdict({ results: map({ a: 'PASSED', other: 'FAILED' }), failToPass: ['a'], passToPass: [], exitCode: 1 });
    expect(v.resolved).toBe(true);
  });
});
