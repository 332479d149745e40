import { descendants, parseXml, type XmlElement } from '../shared/xml.js';
import { py, pyLines, pyMatch, pyStrip, type StatusMap } from '../shared/py-re.js';
import { pyFinditer } from '../shared/py-more.js';

/**
 * swesmith 0.0.9's Java parsers (swesmith/profiles/java.py): Maven Surefire's plain report, one
 * line per test method, and the JUnit XML files Gradle leaves, printed into the log by the test
 * command. Not the harness's parse_log_maven (which pairs `-Dtest=` commands with BUILD lines).
 */
const SUREFIRE_PREFIXED = py('^\\[(INFO|ERROR)\\]\\s+(.*?)\\s+--\\s+Time elapsed:\\s+([\\d.]+)\\s');
const SUREFIRE_PLAIN = py('^([a-zA-Z0-9_]+)\\(([a-zA-Z0-9_.]+)\\)\\s+Time elapsed:\\s+([\\d.]+)\\s+sec');

/**
 * `[INFO] method -- Time elapsed: 0.1 s` passes and `[ERROR] ... <<< FAILURE!` fails; any other
 * bracketed line with a time passes, an `<<< ERROR!` one included (the package's reading). The old
 * unprefixed form `method(Class)  Time elapsed: 0 sec` is always a pass, named `Class.method`.
 */
export function parseSmithMavenSurefire(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    if (line.startsWith('[')) {
      const failure = line.endsWith('<<< FAILURE!') && line.startsWith('[ERROR]');
      if (!failure && !line.includes('Time elapsed:')) continue;
      const m = pyMatch(SUREFIRE_PREFIXED, line);
      if (m) map.set(m[2]!, failure ? 'FAILED' : 'PASSED');
    } else if (line.includes('Time elapsed:') && line.includes('(')) {
      const m = pyMatch(SUREFIRE_PLAIN, line);
      if (m) map.set(`${m[2]!}.${m[1]!}`, 'PASSED');
    }
  }
  return map;
}

const JUNIT_DOCUMENT = py('<\\?xml version.*?</testsuite>', { dotall: true });

/** element.find(tag): a direct child so named. */
const hasChild = (element: XmlElement, tag: string): boolean => element.children.some((c) => c.tag === tag);

/**
 * Each `<?xml version ... </testsuite>` stretch of the log (the shortest) is parsed as a document;
 * one that does not parse is passed over. Every testcase under the root is `classname.name` (the
 * suite's name when it has no classname): failed with a failure or error child, else skipped with
 * a skipped child, else passed.
 */
export function parseSmithGradleJunitXml(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const document of pyFinditer(JUNIT_DOCUMENT, log)) {
    let root: XmlElement;
    try {
      root = parseXml(document[0]);
    } catch {
      continue;
    }
    const suite = root.attributes.get('name') ?? '';
    for (const testCase of descendants(root, 'testcase')) {
      const name = `${testCase.attributes.get('classname') ?? suite}.${testCase.attributes.get('name') ?? ''}`;
      if (hasChild(testCase, 'failure') || hasChild(testCase, 'error')) map.set(name, 'FAILED');
      else if (hasChild(testCase, 'skipped')) map.set(name, 'SKIPPED');
      else map.set(name, 'PASSED');
    }
  }
  return map;
}
