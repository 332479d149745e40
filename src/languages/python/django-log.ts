import type { TestStatus } from '../shared/test-status.js';

const PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];

/** Multi-line passes where output came between "..." and "ok" (SWE-bench's three regex fixes). */
const MULTILINE_PASSES = [
  /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
  /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
  /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
];

/**
 * Django's runtests.py --verbosity 2 output, as SWE-bench's parse_log_django reads it:
 * `name (module.Class) ... ok|skipped|FAIL|ERROR`, `FAIL: name` / `ERROR: name` headers, and a bare
 * `ok` line closing a test whose output came after the dots.
 */
export function parseDjangoLog(log: string): Map<string, TestStatus> {
  const results = new Map<string, TestStatus>();
  let previous: string | undefined;
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (line.includes('--version is equivalent to version')) results.set('--version is equivalent to version', 'PASSED');
    if (line.includes(' ... ')) previous = line.split(' ... ')[0];
    for (const suffix of PASS_SUFFIXES) {
      if (line.endsWith(suffix)) {
        let text = line;
        if (text.startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations'))
          text = text.split('...').slice(1).join('...').trim();
        results.set(text.slice(0, text.lastIndexOf(suffix)), 'PASSED');
        break;
      }
    }
    if (line.includes(' ... skipped')) results.set(line.split(' ... skipped')[0]!, 'SKIPPED');
    if (line.endsWith(' ... FAIL')) results.set(line.split(' ... FAIL')[0]!, 'FAILED');
    if (line.startsWith('FAIL:')) {
      const name = line.split(/\s+/)[1];
      if (name) results.set(name.trim(), 'FAILED');
    }
    if (line.endsWith(' ... ERROR')) results.set(line.split(' ... ERROR')[0]!, 'ERROR');
    if (line.startsWith('ERROR:')) {
      const name = line.split(/\s+/)[1];
      if (name) results.set(name.trim(), 'ERROR');
    }
    if (line.startsWith('ok') && previous !== undefined) results.set(previous, 'PASSED');
  }
  for (const pattern of MULTILINE_PASSES) {
    for (const match of log.matchAll(pattern)) if (match[1]) results.set(match[1], 'PASSED');
  }
  return results;
}
