"""The README's runnable examples, run as written in a fresh venv where only
``pip install './clients/python[parquet]'`` ran (pinned by requirements/constraints.txt), against
the test server."""
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
README = PACKAGE / "README.md"
BLOCKS = re.findall(r"<!-- runnable -->\n```python\n(.*?)```", README.read_text(), re.DOTALL)


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("readme-venv")
    where = root / "venv"
    venv.EnvBuilder(with_pip=True).create(where)
    python = str(where / "bin" / "python")
    # Built from a copy: pip builds a local project in place, and the working tree stays clean.
    source = root / "swe-env-client"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "tests", "*.egg-info", "__pycache__", ".pytest_cache"))
    install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{source}[parquet]", "-c", str(PACKAGE / "requirements" / "constraints.txt")]
    result = subprocess.run(install, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return python


def test_the_readme_has_runnable_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(server, fresh_python, index, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["SWE_ENV_ADDR"] = server.address
    # Run from an empty folder so the working tree's swe_env cannot shadow the installed one.
    result = subprocess.run([fresh_python, "-c", BLOCKS[index]], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() != ""
    assert server.containers() == []
