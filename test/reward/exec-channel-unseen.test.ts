/**
 * The grading's exec channel (a process of the grader's in the grading container while the steps
 * before the change's code run) is gone before any code of the change runs: neither the install
 * re-run (the patch's setup.py) nor the test run (the patch's module at import) sees its process or
 * its folder. The same probe run through an open channel sees both, so the probe can fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelledSandbox } from '../../src/sandbox/channelled-sandbox.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { CHANNEL_DIR } from '../../src/reward/grading/channel-gate.js';
import { CHEAT_TASK, startCheatServers, type CheatServers } from '../cheats/shared/episode-attack.js';
import { said } from '../helpers/exploit-grading.js';

const PROBE = `import glob, os


def channel_seen():
    if os.path.exists(${JSON.stringify(CHANNEL_DIR)}):
        return True
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as f:
                if b"swe-env-" + b"channel" in f.read():
                    return True
        except OSError:
            pass
    return False
`;

const SETUP = `import sys
sys.path.insert(0, "intervals")
from _unseen import channel_seen

if channel_seen():
    with open("intervals/interval.py", "a") as f:
        f.write("\\nraise RuntimeError('the install saw the grader exec channel')\\n")

from setuptools import setup
setup(name="intervals", version="0.1", packages=["intervals"])
`;

const MODULE = `${PROBE}
if channel_seen():
    raise RuntimeError("the test run saw the grader exec channel")
`;

function newFile(path: string, text: string): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
}

const IMPORT_PROBE = `diff --git a/intervals/__init__.py b/intervals/__init__.py
--- a/intervals/__init__.py
+++ b/intervals/__init__.py
@@ -1,4 +1,5 @@
 """Closed intervals and operations on collections of them."""
+from . import _unseen  # noqa: F401
 from .interval import Interval
 from .ops import merge, total_length
 
`;

let servers: CheatServers;

beforeAll(async () => {
  servers = await startCheatServers({ install: true });
}, 600_000);

afterAll(async () => {
  await servers?.stop();
});

describe('the grader exec channel, from the change’s code', () => {
  it('is not there when the patch’s setup.py runs nor when its module is imported by the tests: gold 1', async () => {
    const patch = servers.goldPatch + IMPORT_PROBE + newFile('intervals/_unseen.py', MODULE) + newFile('setup.py', SETUP);
    const report = (await servers.install!.client.evaluate(CHEAT_TASK, patch)).report!;
    expect(report.install?.ran, said(report)).toBe(true);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(1);
  });

  it('is seen by the same probe while it is open (the probe can fail)', async () => {
    const provider = servers.install!.server.provider;
    const task = servers.install!.server.tasks.get(CHEAT_TASK);
    let box: Sandbox | undefined;
    try {
      box = await provider.create({
        image: task.image,
        workdir: task.workdir,
        maxLifetimeS: 300,
        role: 'grader',
        episodeId: 'channel-probe',
        limits: servers.install!.server.config.limits,
      });
      const gated = await ChannelledSandbox.open(box, CHANNEL_DIR, (argv) => argv[0] === 'python3');
      const run = await gated.exec(['python3', '-c', `${PROBE}\nprint(channel_seen())`]);
      expect(run.output.toString()).toBe('True\n');
      const after = await gated.exec(['bash', '-c', `python3 -c '${PROBE.replaceAll("'", "'\\''")}\nprint(channel_seen())'`]);
      expect(after.output.toString()).toBe('False\n');
    } finally {
      await box?.remove();
    }
  });
});
