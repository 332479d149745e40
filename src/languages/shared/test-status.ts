export type TestStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'XFAIL' | 'XPASS';
export type ListedStatus = TestStatus | 'MISSING';

export const TEST_STATUSES: readonly TestStatus[] = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'XFAIL', 'XPASS'];

export type TestStatusMap = ReadonlyMap<string, TestStatus>;

/** How a task resolves: every listed test passing, some, or none. */
export type Resolution = 'FULL' | 'PARTIAL' | 'NO';

/** The file part of a pytest id (`tests/test_a.py::test_b[x]` → `tests/test_a.py`); undefined for other names. */
export function fileOfTestName(name: string): string | undefined {
  const cut = name.indexOf('::');
  return cut > 0 ? name.slice(0, cut) : undefined;
}
