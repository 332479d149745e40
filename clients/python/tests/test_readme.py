"""The README's runnable examples, run as written in a fresh venv where only
``pip install './clients/python[parquet]'`` ran (pinned by requirements/constraints.txt), against
the test server; and the ``[verl]`` extra installed alone in another fresh venv: what verl's
imported code needs comes with it, torch is the tested 2.13.0 (no CUDA build pulled), and the
dataset converter works without the agent loop's imports."""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Dict, Iterator

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
README = PACKAGE / "README.md"
BLOCKS = re.findall(r"<!-- runnable -->\n```python\n(.*?)```", README.read_text(), re.DOTALL)


def _fresh_venv_with(root: Path, extra: str, timeout: int) -> str:
    """A fresh venv where only ``pip install './clients/python[EXTRA]'`` ran, pinned by the test
    lock (its direct-URL lines, for the frameworks the set-up installs with --no-deps, left out)."""
    where = root / "venv"
    # Made by a process of its own: venv writes the interpreter's copy and then runs it, and a
    # fork by any other thread of this one (the other venv's build, a test's server) between the
    # two holds the copy open for writing, so running it failed with ETXTBSY.
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True, timeout=300)
    python = str(where / "bin" / "python")
    # Built from a copy: pip builds a local project in place, and the working tree stays clean.
    source = root / "swe-env-client"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "tests", "cache", "*.egg-info", "__pycache__", ".pytest_cache"))
    lock = [line for line in (PACKAGE / "requirements" / "constraints.txt").read_text().splitlines() if " @ " not in line]
    constraints = root / "constraints.txt"
    constraints.write_text("\n".join(lock) + "\n")
    # --no-compile: Python compiles what is imported when it is imported; byte-compiling every
    # installed module up front (torch's thousands) was a large part of the install's time.
    install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile", f"{source}[{extra}]", "-c", str(constraints)]
    result = subprocess.run(install, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return python


@pytest.fixture(scope="module")
def venv_builds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, "Future[str]"]]:
    """Both fresh venvs, built side by side from the first test that needs one: an install is one
    core's work and the README examples mostly wait on the server and Docker, so the verl venv's
    install (the module's longest wait) runs under them. Each venv is the same fresh install."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {
            "parquet": pool.submit(_fresh_venv_with, tmp_path_factory.mktemp("readme-venv"), "parquet", 900),
            "verl": pool.submit(_fresh_venv_with, tmp_path_factory.mktemp("verl-venv"), "verl", 1800),
        }


@pytest.fixture(scope="module")
def fresh_python(venv_builds: Dict[str, "Future[str]"]) -> str:
    return venv_builds["parquet"].result()


@pytest.fixture(scope="module")
def verl_python(venv_builds: Dict[str, "Future[str]"]) -> str:
    return venv_builds["verl"].result()


def _clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def test_the_readme_has_runnable_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(server, fresh_python, index, tmp_path):
    env = _clean_env(SWE_ENV_ADDR=server.address)
    # Run from an empty folder so the working tree's swe_env cannot shadow the installed one.
    result = subprocess.run([fresh_python, "-c", BLOCKS[index]], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() != ""
    assert server.containers() == []


VERL_EXTRA_CHECK = """
import importlib.metadata as md
import torch
assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
assert torch.version.cuda is None, f"a CUDA build of torch: {torch.version.cuda}"
cuda = sorted(d.metadata["Name"] for d in md.distributions() if d.metadata["Name"].lower().startswith(("nvidia-", "cuda-", "triton")))
assert not cuda, f"CUDA packages installed: {cuda}"
import swe_env.verl  # what verl's external_lib import does: registers the estimator
from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY
assert "swe_env_grpo" in ADV_ESTIMATOR_REGISTRY
import swe_env.verl.agent_loop, swe_env.verl.tools  # verl's agent loop, its server and its tools
from verl.experimental.agent_loop.agent_loop import _agent_loop_registry
assert "swe_env" in _agent_loop_registry
print("verl extra ok: torch", torch.__version__)
"""


def test_the_verl_extra_brings_what_verl_imports_and_the_tested_cpu_torch(verl_python, tmp_path):
    result = subprocess.run([verl_python, "-c", VERL_EXTRA_CHECK], env=_clean_env(), capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "verl extra ok" in result.stdout


def test_the_dataset_converter_runs_without_the_agent_loop_imports(server, verl_python, tmp_path):
    """verl installed, but what its agent loop imports is not: the README's converter example still
    runs, and does not import the agent loop."""
    block = next(b for b in BLOCKS if "swe_env.verl.dataset" in b)
    blocked = "import sys\nfor _m in ('cachetools', 'fastapi', 'uvicorn'):\n    sys.modules[_m] = None\n"
    check = "\nassert 'verl' in sys.modules and 'swe_env.verl.agent_loop' not in sys.modules, sorted(sys.modules)\n"
    result = subprocess.run([verl_python, "-c", blocked + block + check], env=_clean_env(SWE_ENV_ADDR=server.address), capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip() != ""
    assert server.containers() == []
