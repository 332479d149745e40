/**
 * What the grading boot costs a pytest run, inside a real task image (the demo textkit image's
 * Debian pytest), against the same run without it, measured in the same run, alternating:
 * - bare: `python3 -m pytest` on a suite of trivial tests;
 * - boot: the same with the boot on PYTHONPATH (its monitor, the recorder, the witness of each
 *   report and the hook watch), as the grader runs it.
 * A trivial test is the worst case: the boot's cost is per test and per event, the tests' own cost nil.
 * Usage: node dist/bench/pytest-boot.js [--tests 1000] [--runs 7]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BOOT_FILES, RECORDER_SOURCE } from '../src/reward/recorder-channel.js';
import { arg, describe, printRow, runMain } from './stats.js';

const run = promisify(execFile);
const IMAGE = 'sweb.eval.x86_64.swe-env-demo__textkit-2:latest';

/** Runs inside the container: times each pytest run, printing one JSON line of milliseconds per variant. */
const DRIVER = `import json, os, subprocess, sys, time
tests, runs = int(sys.argv[1]), int(sys.argv[2])
os.makedirs("/work/suite", exist_ok=True)
with open("/work/suite/test_many.py", "w") as f:
    for i in range(tests):
        f.write(f"def test_{i}():\\n    assert {i} == {i}\\n\\n")
config = {"key_file": "/work/g/key", "out": "/work/g/out", "guarded_dir": "/work/g", "workdir": "/work/suite",
          "agent_files": [], "test_files": ["test_many.py"], "runner": "pytest", "recorder_module": "swe_env_rec_bench",
          "recorder_path": "/work/g/rec.py", "plugins": []}
with open("/work/g/config.json", "w") as f:
    json.dump(config, f)
samples = {"bare": [], "boot": []}
for _ in range(runs):
    for variant in ("bare", "boot"):
        env = dict(os.environ)
        if variant == "boot":
            with open("/work/g/key", "w") as f:
                f.write("k" * 64)
            if os.path.exists("/work/g/out"):
                os.unlink("/work/g/out")
            env.update(SWE_ENV_BOOT_CONFIG="/work/g/config.json", PYTHONPATH="/work/g/boot")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_many.py"], cwd="/work/suite", env=env, capture_output=True)
        samples[variant].append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            sys.exit(f"{variant}: pytest exited {done.returncode}: {done.stdout[-500:]!r}")
    records = sum(1 for _ in open("/work/g/out"))
    if records < tests * 3:
        sys.exit(f"boot: {records} records for {tests} tests: the recorder did not run")
print(json.dumps(samples))
`;

async function main(): Promise<void> {
  const tests = arg('tests', 1000);
  const runs = arg('runs', 7);
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-bench-boot-'));
  try {
    mkdirSync(join(dir, 'g', 'boot'), { recursive: true });
    for (const [name, content] of BOOT_FILES) writeFileSync(join(dir, 'g', 'boot', name), content);
    writeFileSync(join(dir, 'g', 'rec.py'), RECORDER_SOURCE);
    writeFileSync(join(dir, 'driver.py'), DRIVER);
    chmodSync(dir, 0o777);
    const { stdout } = await run(
      'docker',
      ['run', '--rm', '--network', 'none', '-v', `${dir}:/work`, IMAGE, 'python3', '/work/driver.py', String(tests), String(runs)],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const samples = JSON.parse(stdout.trim().split('\n').pop()!) as { bare: number[]; boot: number[] };
    const bare = describe(`pytest, ${tests} trivial tests, bare`, samples.bare);
    const boot = describe(`pytest, ${tests} trivial tests, boot`, samples.boot);
    printRow(bare);
    printRow(boot);
    process.stdout.write(`boot / bare: p50 ${(boot.p50 / bare.p50).toFixed(2)}x, p95 ${(boot.p95 / bare.p95).toFixed(2)}x\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
