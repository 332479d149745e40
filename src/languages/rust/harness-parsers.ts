import { lineParser, py } from '../shared/py-re.js';

/**
 * The harness's Rust parser (swebench 5.x harness/log_parsers/rust.py): libtest's `test name ... ok`
 * and `... FAILED` lines. An ignored test is not in the map, and neither is a doctest (its name
 * has spaces) or a `should panic` test (its line has words between the name and "...").
 */
export const parseLogCargo = lineParser(py('^test\\s+(\\S+)\\s+\\.\\.\\.\\s+(\\w+)$'), (m) => {
  if (m[2] === 'ok') return [m[1]!, 'PASSED'];
  return m[2] === 'FAILED' ? [m[1]!, 'FAILED'] : undefined;
});
