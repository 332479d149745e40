/**
 * The attribution this fixes, both ways, through the real grader: a task shaped like psf/requests'
 * TestTimeout (a PASS_TO_PASS test that connects to an unroutable address and expects a timeout).
 * In a grading container with loopback only ('none', as every grading ran before), the connect
 * fails at once with "Network is unreachable" and the gold patch scores 0: the environment's fault
 * charged to the model. 'offline' (the default) routes every address into loopback, where packets
 * die, so the gold patch scores 1 while an empty patch still scores 0; the report says which network
 * the tests had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Semaphore } from '../../src/common/semaphore.js';
import { Grader } from '../../src/reward/grader.js';
import type { GradingNetwork } from '../../src/reward/grading/grader-options.js';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cleanUpFixture, type TaskFixture } from '../helpers/task-fixture.js';

const provider = testProvider();
const scratch: string[] = [];
let fixture: TaskFixture;

const TEST_FILE = `import socket

import pytest

from client import fetch


TARPIT = ("10.255.255.1", 80)


def test_connect_timeout():
    with pytest.raises(socket.timeout):
        socket.create_connection(TARPIT, timeout=0.5)


def test_fetch_reports_timeouts():
    assert fetch(TARPIT, timeout=0.5) == "timed out"
`;

function grader(network: GradingNetwork): Grader {
  const limits = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512, diskBytes: 0 };
  return new Grader(
    provider,
    new Semaphore(2),
    { limits, testTimeoutS: 120, logLimitBytes: 1 << 20, maxGradings: 2, gradingNetwork: network },
    pino({ level: 'silent' }),
  );
}

beforeAll(async () => {
  fixture = await buildTaskFixture(
    'tarpit',
    {
      base: {
        // A conftest.py at the root puts the repository on pytest's path.
        'conftest.py': '',
        'client.py':
          'import socket\n\n\ndef fetch(address, timeout):\n    socket.create_connection(address, timeout=timeout)\n    return "connected"\n',
        'tests/test_client.py': TEST_FILE.split('\n\n\ndef test_fetch')[0] + '\n',
      },
      fix: {
        'client.py':
          'import socket\n\n\ndef fetch(address, timeout):\n    try:\n        socket.create_connection(address, timeout=timeout)\n    except socket.timeout:\n        return "timed out"\n    return "connected"\n',
        'tests/test_client.py': TEST_FILE,
      },
    },
    (common) => [
      {
        ...common,
        instance_id: 'example__tarpit-1',
        FAIL_TO_PASS: ['tests/test_client.py::test_fetch_reports_timeouts'],
        PASS_TO_PASS: ['tests/test_client.py::test_connect_timeout'],
        image_name: 'swe-env-test/sweb.eval.x86_64.example__tarpit-1:latest',
      },
    ],
    scratch,
  );
}, 600_000);

afterAll(async () => {
  await cleanUpFixture(provider, scratch);
}, 120_000);

describe('grading network', () => {
  it("was the environment's fault: with loopback only, the gold patch fails a test that waits on an unroutable address", async () => {
    const task = fixture.tasks[0]!;
    const report = await grader('none').grade(task, Buffer.from(task.goldPatch));
    expect(report.gradingNetwork).toBe('none');
    expect(report.passToPass).toEqual([{ name: 'tests/test_client.py::test_connect_timeout', status: 'FAILED' }]);
    expect(report.logTail).toMatch(/Network is unreachable/);
    expect(report.reward).toBe(0);
  });

  it("'offline' grades the gold patch 1 and an empty patch 0, and the report names the network", async () => {
    const task = fixture.tasks[0]!;
    const offline = grader('offline');
    const gold = await offline.grade(task, Buffer.from(task.goldPatch));
    expect(gold.gradingNetwork).toBe('offline (route set with python)');
    expect(gold.infraError).toBe(false);
    expect(gold.passToPass.map((r) => r.status)).toEqual(['PASSED']);
    expect(gold.reward).toBe(1);
    const empty = await offline.grade(task, Buffer.alloc(0));
    expect(empty.failToPass.map((r) => r.status)).toEqual(['FAILED']);
    expect(empty.reward).toBe(0);
  });
});
