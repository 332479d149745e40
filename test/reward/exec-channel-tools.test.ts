/**
 * The exec channel reads its requests with the image's `head -c`, which must stop at its count on
 * a pipe. busybox's reads ahead: the channel's first request (the inventory) then waited out its
 * 60 s and came back empty, so the pristine image's pytest plugins were not loaded for the test run
 * (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1; the boot names only the inventory's), and a task whose tests
 * use a plugin's fixture scored its gold patch 0 with the channel on, 1 off. The channel now tries
 * its `head` first and is not used where it reads ahead. Here an image of the demo task whose
 * `head -c` reads ahead as busybox's does, with a pytest plugin its hidden tests need.
 */
import { describe, expect, it } from 'vitest';
import { CHEAT_TASK } from '../cheats/shared/episode-attack.js';
import { said } from '../helpers/exploit-grading.js';
import { channelVariantServers } from '../helpers/channel-variant.js';

const READ_AHEAD_HEAD = `#!/usr/bin/python3
# head -c N on stdin as busybox's: reads what the pipe holds, prints N bytes of it.
import os, sys
args = sys.argv[1:]
if len(args) == 2 and args[0] == "-c":
    n = int(args[1])
    data = os.read(0, 65536)
    while len(data) < n:
        more = os.read(0, 65536)
        if not more:
            break
        data += more
    os.write(1, data[:n])
    sys.exit(0)
os.execv("/usr/bin/head", ["head", *args])
`;

const SITE = 'usr/local/lib/python3.11/dist-packages';
const PLUGIN = 'import pytest\n\n\n@pytest.fixture\ndef right_end():\n    return 5\n';

const servers = channelVariantServers({
  name: 'channel-readahead',
  dockerfileLines: [
    'COPY head /usr/local/bin/head',
    `COPY right_end_plugin.py /${SITE}/right_end_plugin.py`,
    `COPY entry_points.txt /${SITE}/right_end_plugin-0.1.dist-info/entry_points.txt`,
    `COPY METADATA /${SITE}/right_end_plugin-0.1.dist-info/METADATA`,
  ],
  files: {
    head: { content: Buffer.from(READ_AHEAD_HEAD), mode: 0o755 },
    'right_end_plugin.py': PLUGIN,
    'entry_points.txt': '[pytest11]\nright_end = right_end_plugin\n',
    METADATA: 'Metadata-Version: 2.1\nName: right-end-plugin\nVersion: 0.1\n',
  },
  // The first test takes the interval's end from the plugin's fixture.
  record: (record) => {
    const testPatch = String(record['test_patch']).replace(
      '+def test_contains_end():\n+    assert Interval(1, 5).contains(5)',
      '+def test_contains_end(right_end):\n+    assert Interval(1, right_end).contains(right_end)',
    );
    if (testPatch === record['test_patch']) throw new Error('the demo task’s test_contains_end changed: the fixture is not used');
    return { ...record, test_patch: testPatch };
  },
});
const on = servers.on;
const off = servers.off;

describe('an image whose head -c reads ahead (busybox’s), its tests needing a pytest plugin of the image', () => {
  for (const [name, server] of [
    ['channel on', on],
    ['channel off', off],
  ] as const) {
    it(`${name}: the gold patch scores 1, the plugin's fixture found`, async () => {
      const report = (await server().client.evaluate(CHEAT_TASK, servers.gold())).report!;
      expect(report.infraError, said(report)).toBe(false);
      expect(report.logTail).not.toMatch(/fixture 'right_end' not found/);
      expect(report.reward, said(report)).toBe(1);
    }, 180_000);
  }

  it('channel on, no change: 0 (the fixture alone fixes nothing)', async () => {
    const report = (await on().client.evaluate(CHEAT_TASK, '')).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(0);
  });
});
