"""Fork and Replay from the Python client (issue 22): a tree search on a demo task whose branches
are independent and graded alone, fork children kept on their parent's server by a fleet client,
and a replay of a recorded prefix that reports the step that did not repeat."""
import asyncio
import tempfile

import pytest

from conftest import SCRATCH, Server, gold_command
from swe_env import AsyncSweEnvClient, SweEnvClient
from swe_env.errors import FailedPreconditionError

TASK = "swe-env-demo__textkit-2"


@pytest.fixture(scope="module")
def recording_server():
    """A second server that records trajectories (Replay reads them by episode id)."""
    s = Server(("--trajectory-dir", tempfile.mkdtemp(prefix="swe-env-traj-", dir=SCRATCH)))
    try:
        yield s
    finally:
        s.stop()


def test_fork_tree_search_branches_are_independent_and_graded_alone(server, demo_tasks):
    with SweEnvClient(server.address) as client:
        root = client.reset(TASK).episode_id
        client.step(root, 0, "bash", {"command": "export ATTEMPT=pivot && mkdir -p /tmp/work && cd /tmp/work && echo base > f"})
        fork = client.fork(root, 3)
        assert fork.branch_step == 1 and len(fork.episode_ids) == 3
        fixed, broken, idle = fork.episode_ids
        seen = client.step(idle, 1, "bash", {"command": "cat f; pwd; echo $ATTEMPT"})
        assert seen.observation.split() == ["base", "/tmp/work", "pivot"]
        client.step(fixed, 1, "bash", {"command": "cd /testbed && " + gold_command(demo_tasks[TASK]["patch"])})
        client.step(broken, 1, "bash", {"command": "echo broken > /tmp/work/f && rm /testbed/textkit/wrap.py"})
        assert client.step(idle, 2, "bash", {"command": "cat /tmp/work/f; ls /testbed/textkit/wrap.py"}).observation.split() == ["base", "/testbed/textkit/wrap.py"]
        assert client.step(fixed, 2, "submit_solution", {}).reward == 1.0
        assert client.step(broken, 2, "submit_solution", {}).reward == 0.0
        # An ended episode is no fork parent.
        with pytest.raises(FailedPreconditionError):
            client.fork(fixed, 1)
        for episode in [root, *fork.episode_ids]:
            client.close(episode)
    assert server.leftovers() == []


def test_fleet_keeps_fork_children_on_the_parent_server(server, recording_server):
    async def main():
        client = AsyncSweEnvClient([server.address, recording_server.address])
        parents = [(await client.reset(TASK, group_id=f"g{i}")).episode_id for i in range(2)]
        for parent in parents:
            home = client.episode_address(parent)
            fork = await client.fork(parent, 2)
            assert [client.episode_address(c) for c in fork.episode_ids] == [home, home]
            results = await asyncio.gather(*(client.step(c, 0, "bash", {"command": "echo child"}) for c in fork.episode_ids))
            assert [r.observation.strip() for r in results] == ["child", "child"]
            await asyncio.gather(*(client.close(e) for e in [parent, *fork.episode_ids]))
        await client.aclose()

    asyncio.run(main())
    assert server.leftovers() == [] and recording_server.leftovers() == []


def test_replay_reruns_a_recorded_prefix_and_reports_where_it_diverged(recording_server):
    with SweEnvClient(recording_server.address) as client:
        source = client.reset(TASK).episode_id
        commands = ["echo one > /tmp/r && cat /tmp/r", "cat /proc/sys/kernel/random/uuid", "echo two >> /tmp/r && wc -l < /tmp/r"]
        for i, command in enumerate(commands):
            client.step(source, i, "bash", {"command": command})
        client.close(source)
        replay = client.replay(source_episode_id=source, steps=3)
        assert replay.steps == 3
        # The random uuid is the one step that cannot repeat: reported, not hidden.
        assert [(d.step_index, d.field) for d in replay.divergences] == [(1, "observation")]
        assert replay.first_divergence == 1
        after = client.step(replay.episode_id, 3, "bash", {"command": "cat /tmp/r"})
        assert after.observation.split() == ["one", "two"]
        client.close(replay.episode_id)
    assert recording_server.leftovers() == []
