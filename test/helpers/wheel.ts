import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Writes the wheel as a zip with the host's python3 (node has no zip writer); the RECORD lists every file. */
const MAKE_WHEEL = `
import base64, hashlib, sys, zipfile
path, name, version, source = sys.argv[1:5]
info = f"{name}-{version}.dist-info"
files = {
    f"{name}/__init__.py": source,
    f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n",
    f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: swe-env-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
def digest(text):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
record = "".join(f"{p},{digest(t)},{len(t.encode())}\\n" for p, t in files.items()) + f"{info}/RECORD,,\\n"
with zipfile.ZipFile(path, "w") as z:
    for p, t in files.items():
        z.writestr(p, t)
    z.writestr(f"{info}/RECORD", record)
`;

/** A pure-Python wheel `name-version-py3-none-any.whl` in dir whose package's __init__ is `source`; returns its path. */
export async function makeWheel(dir: string, name: string, version: string, source: string): Promise<string> {
  const path = join(dir, `${name}-${version}-py3-none-any.whl`);
  await run('python3', ['-c', MAKE_WHEEL, path, name, version, source]);
  return path;
}
