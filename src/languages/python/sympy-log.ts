import type { TestStatus } from '../shared/test-status.js';

/**
 * sympy's bin/test --verbose output, as SWE-bench's parse_log_sympy reads it: every
 * `___ path.py:name ___` failure header is FAILED, then `test_x ... ok|F|E` lines.
 */
export function parseSympyLog(log: string): Map<string, TestStatus> {
  const results = new Map<string, TestStatus>();
  for (const match of log.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) results.set(`${match[2]}.py:${match[3]}`, 'FAILED');
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    const name = line.split(/\s+/)[0]!;
    if (line.endsWith(' E')) results.set(name, 'ERROR');
    if (line.endsWith(' F')) results.set(name, 'FAILED');
    if (line.endsWith(' ok')) results.set(name, 'PASSED');
  }
  return results;
}
