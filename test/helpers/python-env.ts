import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/common/paths.js';

const exec = promisify(execFile);

/** The Python test environment scripts/setup-python.sh made (the same path its lib.sh computes). */
export async function pythonEnv(): Promise<string> {
  const { stdout } = await exec('bash', ['-c', '. scripts/lib.sh && python_env_dir'], { cwd: packageRoot() });
  return stdout.trim();
}

/** Runs a Python script of the test environment with JSON lines in and out. */
export async function runPythonJsonLines(
  script: string,
  input: readonly unknown[],
  options: { pythonPath?: string } = {},
): Promise<unknown[]> {
  const env = await pythonEnv();
  const child = spawn(join(env, 'bin', 'python'), [script], {
    cwd: packageRoot(),
    env: { ...process.env, ...(options.pythonPath ? { PYTHONPATH: options.pythonPath } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  child.stdin.end(input.map((x) => JSON.stringify(x)).join('\n') + (input.length ? '\n' : ''));
  const code = await done;
  if (code !== 0) throw new Error(`${script} exited ${code}: ${err.slice(-3000)}`);
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}
