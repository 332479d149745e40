/**
 * Hidden Rust tests (tests/environment.rs and a fixture, added to wordcount-1's test patch) doing
 * what Rust tests commonly do with their environment, for cargo-tests-as-test-user.test.ts: those
 * the grading's test user keeps (KEPT, listed), and those it loses (LOST: a test that needs root,
 * one that reads its own source, one that runs `cargo build`, one that lists cargo's target
 * directory, one that reads its own binary, one that opens /dev/stdout: the test process is not
 * dumpable, so its /proc/self/fd is root's), each failing there. DOCTESTS: two doctests a
 * change may carry in src/lib.rs, one that runs anywhere and one that needs root (doctests run
 * as the test user too). As root, every one of them passes. Each names its scratch files
 * after its own thread (libtest's test name), so copies of it running beside it do not collide.
 */

/** The fixture the tests read (added by the test patch too, beside them). */
export const FIXTURE = 'hello\n';

export const KEPT = [
  'env_writes_beside_itself',
  'env_manifest_dir_paths',
  'env_reads_fixture',
  'env_temp_dir',
  'env_home',
  'env_current_exe_in_target',
  'env_git_status',
  'env_cargo_metadata',
] as const;

export const LOST = [
  'env_needs_root',
  'env_reads_its_own_source',
  'env_cargo_build',
  'env_lists_target_dir',
  'env_reads_its_binary',
  'env_opens_dev_stdout',
] as const;

export const ENVIRONMENT_TESTS = `use std::path::{Path, PathBuf};
use std::process::Command;

/** A name of this test's own (libtest names each test's thread after it). */
fn scratch_name(what: &str) -> String {
    let thread = std::thread::current();
    format!("{}-{}-{}", what, thread.name().unwrap_or("main").replace(':', "_"), std::process::id())
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn env_writes_beside_itself() {
    for dir in [manifest_dir().join("tests"), manifest_dir()] {
        let path = dir.join(scratch_name("scratch"));
        std::fs::write(&path, "x").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn env_manifest_dir_paths() {
    let at_run = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    assert_eq!(at_run, manifest_dir());
    assert!(std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap().contains("wordcount"));
    assert!(std::fs::read_to_string("src/lib.rs").unwrap().contains("count_words"));
}

#[test]
fn env_reads_fixture() {
    assert_eq!(std::fs::read_to_string(manifest_dir().join("tests/data/greeting.txt")).unwrap(), "hello\\n");
}

#[test]
fn env_temp_dir() {
    let dir = std::env::temp_dir().join(scratch_name("tmp"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("f"), "x").unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn env_home() {
    let home = PathBuf::from(std::env::var("HOME").unwrap());
    let cache = home.join(".cache").join(scratch_name("wordcount"));
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("f"), "x").unwrap();
    std::fs::remove_dir_all(&cache).unwrap();
}

/** Where tests find the crate's binaries: beside their own (assert_cmd, ripgrep's tests). */
#[test]
fn env_current_exe_in_target() {
    let exe = std::env::current_exe().unwrap();
    assert!(exe.exists());
    let deps = exe.parent().unwrap();
    assert!(deps.ends_with("debug/deps"), "{}", exe.display());
    assert!(deps.parent().unwrap().is_dir());
}

#[test]
fn env_git_status() {
    let out = Command::new("git").args(["status", "--porcelain"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn env_cargo_metadata() {
    let out = Command::new("cargo").args(["metadata", "--no-deps", "--offline", "--format-version", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\\"wordcount\\""));
}

#[test]
fn env_needs_root() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    assert!(status.lines().any(|l| l.starts_with("Uid:\\t0\\t")), "not root");
}

#[test]
fn env_reads_its_own_source() {
    assert!(std::fs::read_to_string(Path::new(file!())).unwrap().contains("env_reads_its_own_source"));
}

#[test]
fn env_cargo_build() {
    let out = Command::new("cargo").args(["build", "--offline", "--lib"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn env_reads_its_binary() {
    assert!(std::fs::read(std::env::current_exe().unwrap()).unwrap().len() > 0);
}

#[test]
fn env_opens_dev_stdout() {
    use std::io::Write;
    let mut out = std::fs::OpenOptions::new().write(true).open("/dev/stdout").unwrap();
    out.write_all(b"").unwrap();
}

#[test]
fn env_lists_target_dir() {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    assert!(std::fs::read_dir(&deps).unwrap().count() > 0);
}
`;

/** Doctests appended to src/lib.rs (doctest names carry their line: tests match them by prefix). */
export const DOCTESTS = `
/// A doctest that runs anywhere: the crate's function through its public path.
/// \`\`\`
/// assert_eq!(wordcount::count_words("a b"), 2);
/// \`\`\`
pub fn doc_kept() {}

/// A doctest that needs root.
/// \`\`\`
/// let status = std::fs::read_to_string("/proc/self/status").unwrap();
/// assert!(status.lines().any(|l| l.starts_with("Uid:\\t0\\t")), "not root");
/// \`\`\`
pub fn doc_needs_root() {}
`;
