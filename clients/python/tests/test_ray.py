"""swe_env.ray on a real multi-node Ray cluster on this machine (a head and two worker nodes), each
node's server on its own Docker engine: tests/ray_fleet_scenario.py, run in a process of its own
because the rest of this session already holds a local Ray instance (and Ray starts once per
process)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_ray_fleet_on_a_three_node_cluster_with_one_engine_per_node():
    scenario = Path(__file__).with_name("ray_fleet_scenario.py")
    done = subprocess.run([sys.executable, str(scenario)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-8000:]
    assert "SCENARIO one-server-per-node: ok" in done.stdout
    assert "SCENARIO refuses-without-auth: ok" in done.stdout
