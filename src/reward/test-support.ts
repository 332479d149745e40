/**
 * Test-support modules outside the usual test folders: a package's `_testing` module
 * (`pandas._testing`, `sklearn.utils._testing`), `testutils` (`pylint.testutils`) and the like. The
 * task's test files import their assertion helpers from them, so an agent that made
 * `assert_array_equal` a no-op would pass without a fix. They are recognised by what the task's
 * test files import, not by a list of repositories.
 */
const SUPPORT_COMPONENT = /^_?(tests?|testing|testutils?|testlib|testhelpers?|test_?(utils?|helpers?|support|common|tools|base))$/;

/** Modules a Python source imports (`import a.b`, `from a.b import c` gives a.b and a.b.c), relative ones resolved against its file. */
export function importedModules(path: string, source: string): string[] {
  const found = new Set<string>();
  const packageParts = path.split('/').slice(0, -1);
  const absolute = (dots: string, name: string): string | undefined => {
    if (dots === '') return name;
    const up = dots.length - 1;
    if (up > packageParts.length) return undefined;
    const base = packageParts.slice(0, packageParts.length - up);
    return [...base, ...(name ? name.split('.') : [])].join('.');
  };
  // Statements may continue in parentheses over several lines: join them first.
  const text = source.replace(/\(([^()]*)\)/g, (_m, inner: string) => inner.replace(/\s*\n\s*/g, ' '));
  for (const line of text.split('\n')) {
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)$/.exec(line);
    if (from) {
      const module = absolute(from[1]!, from[2]!);
      if (module === undefined) continue;
      if (module) found.add(module);
      for (const item of from[3]!.split(',')) {
        const name = item.trim().split(/\s+/)[0] ?? '';
        if (/^\w+$/.test(name)) found.add(module ? `${module}.${name}` : name);
      }
      continue;
    }
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (plain) {
      for (const item of plain[1]!.split(',')) {
        const name = item.trim().split(/\s+/)[0] ?? '';
        if (/^[\w.]+$/.test(name)) found.add(name);
      }
    }
  }
  return [...found];
}

/** Of the imported modules, the test-support ones, as repository path stems (`pandas/_testing`). */
export function supportStems(modules: readonly string[]): string[] {
  const stems = new Set<string>();
  for (const module of modules) {
    const parts = module.split('.');
    const at = parts.findIndex((part) => SUPPORT_COMPONENT.test(part));
    if (at >= 0) stems.add(parts.slice(0, at + 1).join('/'));
  }
  return [...stems].sort();
}

/** Whether a repository path is (inside) one of the stems: `x/_testing.py`, `x/_testing/...`, also under `src/` or `lib/`. */
export function isSupportPath(path: string, stems: readonly string[]): boolean {
  for (const stem of stems) {
    for (const prefix of ['', 'src/', 'lib/']) {
      const full = prefix + stem;
      if (path === `${full}.py` || path.startsWith(`${full}/`)) return true;
    }
  }
  return false;
}
