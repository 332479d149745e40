/**
 * Hidden Go tests (a file added to semver-1's test patch) doing what Go tests commonly do with
 * their environment, for go-tests-as-test-user.test.ts: those the grading's test user keeps
 * (KEPT, listed), and those it loses (LOST: a test that needs root or skips without it, one that
 * reads its own source, one that runs go test on its own package), each with its outcome there.
 * As root, every one of them passes.
 */

/** The testdata file the tests read (added by the test patch too). */
export const TESTDATA = 'hello\n';

export const KEPT = [
  'TestEnvWritesBesideItself',
  'TestEnvReadsTestdata',
  'TestEnvTempDir',
  'TestEnvHomeAndCache',
  'TestEnvGit',
  'TestEnvGoBuildAndVet',
] as const;

export const LOST: readonly { readonly test: string; readonly outcome: 'FAIL' | 'SKIP' }[] = [
  { test: 'TestEnvNeedsRoot', outcome: 'FAIL' },
  { test: 'TestEnvSkipsUnlessRoot', outcome: 'SKIP' },
  { test: 'TestEnvReadsItsOwnSource', outcome: 'FAIL' },
  { test: 'TestEnvGoTestOnItsPackage', outcome: 'FAIL' },
];

export const ENVIRONMENT_TESTS = `package semver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvWritesBesideItself(t *testing.T) {
	if err := os.WriteFile("scratch.out", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove("scratch.out"); err != nil {
		t.Fatal(err)
	}
}

func TestEnvReadsTestdata(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "greeting.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "hello" {
		t.Fatalf("testdata: %q, %v", data, err)
	}
}

func TestEnvTempDir(t *testing.T) {
	if err := os.WriteFile(filepath.Join(t.TempDir(), "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestEnvHomeAndCache(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".semver-test"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "semver-test"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestEnvGit(t *testing.T) {
	if out, err := exec.Command("git", "status", "--porcelain").CombinedOutput(); err != nil {
		t.Fatalf("git status: %v\\n%s", err, out)
	}
}

func TestEnvGoBuildAndVet(t *testing.T) {
	for _, args := range [][]string{{"build", "."}, {"vet", "."}} {
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\\n%s", args, err, out)
		}
	}
}

func TestEnvNeedsRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatalf("uid %d, not root", os.Getuid())
	}
}

func TestEnvSkipsUnlessRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
}

func TestEnvReadsItsOwnSource(t *testing.T) {
	if _, err := os.ReadFile("environment_test.go"); err != nil {
		t.Fatal(err)
	}
}

func TestEnvGoTestOnItsPackage(t *testing.T) {
	out, err := exec.Command("go", "test", "-count=1", "-run", "^TestParse$", "-v", ".").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestParse") {
		t.Fatalf("go test: %v\\n%s", err, out)
	}
}
`;
