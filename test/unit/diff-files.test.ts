import { describe, expect, it } from 'vitest';
import { diffFiles, namedPaths } from '../../src/reward/diff-files.js';

const DIFF = `diff --git a/src/a.py b/src/a.py
index 1..2 100644
--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-x
+y
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+def test_x(): pass
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/dir with space/f.py b/dir with space/f.py
--- a/dir with space/f.py
+++ b/dir with space/f.py
diff --git "a/tab\\there.py" "b/tab\\there.py"
--- "a/tab\\there.py"
+++ "b/tab\\there.py"
diff --git a/tests/data.json b/tests/data.json
GIT binary patch
literal 1
Ic$@~L0001

`;

describe('diffFiles', () => {
  const files = diffFiles(DIFF);

  it('finds every file with new and deleted flags', () => {
    expect(files.map((f) => f.path)).toEqual([
      'src/a.py',
      'tests/test_new.py',
      'old.txt',
      'dir with space/f.py',
      'tab\there.py',
      'tests/data.json',
    ]);
    expect(files[1]).toMatchObject({ isNew: true, isDeleted: false });
    expect(files[2]).toMatchObject({ isNew: false, isDeleted: true });
  });
});

describe('the paths a diff names', () => {
  it('are its headers and its ---/+++ lines: a hunk under a header naming another file names its own', () => {
    const mismatched = [
      'diff --git a/README b/README',
      '--- a/setup.py',
      '+++ b/setup.py',
      '@@ -1 +1,2 @@',
      ' x',
      '+y',
      'diff --git a/notes.txt b/notes.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/pyproject.toml\t2024-01-01',
      '@@ -0,0 +1 @@',
      '+[build-system]',
      '',
    ].join('\n');
    expect(namedPaths(mismatched).sort()).toEqual(['README', 'notes.txt', 'pyproject.toml', 'setup.py']);
    expect(namedPaths(DIFF)).toEqual(expect.arrayContaining(diffFiles(DIFF).map((f) => f.path)));
  });
});
