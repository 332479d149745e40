export type TestStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'XFAIL' | 'XPASS';
export type ListedStatus = TestStatus | 'MISSING';

export const TEST_STATUSES: readonly TestStatus[] = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'XFAIL', 'XPASS'];

export type TestStatusMap = ReadonlyMap<string, TestStatus>;
