import { beforeLastOrAll, pyStrip, type StatusMap } from '../shared/py-re.js';
import { pySplitlines } from '../shared/py-more.js';
import type { TestStatus } from '../shared/test-status.js';

/**
 * swesmith 0.0.9's parser for Rust (swesmith/profiles/rust.py). Looser than the harness's
 * parse_log_cargo: cargo's result lines are found anywhere in a line.
 */

/** RustProfile's: a line (less a leading `test `) holding `... ok` or `... FAILED`, named by what comes before its last ` ... `. */
export function parseSmithCargo(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pySplitlines(log)) {
    const line = raw.startsWith('test ') ? raw.slice('test '.length) : raw;
    const status: TestStatus | undefined = line.includes('... ok') ? 'PASSED' : line.includes('... FAILED') ? 'FAILED' : undefined;
    if (status) map.set(pyStrip(beforeLastOrAll(line, ' ... ')), status);
  }
  return map;
}
