"""The README's runnable examples, run as written against the test server."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"<!-- runnable -->\n```python\n(.*?)```", README.read_text(), re.DOTALL)


def test_the_readme_has_runnable_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(server, index):
    env = {**os.environ, "SWE_ENV_ADDR": server.address, "PYTHONPATH": str(README.parent)}
    result = subprocess.run([sys.executable, "-c", BLOCKS[index]], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() != ""
    assert server.containers() == []
