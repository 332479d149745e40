"""The tests import this checkout's swe_env, never another checkout's: the Python test venv is
shared by every checkout on the machine (/var/cache/swe-env/python-<hash>), so it holds no swe_env
of its own, and this checkout's clients/python comes first on the path of the tests (conftest.py)
and of every process they start (PYTHONPATH: scripts/test-all.sh, conftest.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1]
OURS = CLIENT / "swe_env" / "__init__.py"
WHERE = "import swe_env; print(swe_env.__file__)"


def test_the_tests_import_this_checkouts_swe_env():
    import swe_env

    assert Path(swe_env.__file__).resolve() == OURS, f"swe_env from {swe_env.__file__}, not this checkout's {CLIENT}"


def test_a_process_the_tests_start_imports_this_checkouts_swe_env(tmp_path):
    # From an empty folder with the environment the tests hand their subprocesses.
    done = subprocess.run([sys.executable, "-c", WHERE], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert Path(done.stdout.strip()).resolve() == OURS, f"a subprocess imported swe_env from {done.stdout.strip()}, not this checkout's {CLIENT}"


def test_a_ray_worker_imports_this_checkouts_swe_env(ray_cluster):
    @ray_cluster.remote
    def where() -> str:
        import swe_env

        return swe_env.__file__

    assert Path(ray_cluster.get(where.remote(), timeout=300)).resolve() == OURS
