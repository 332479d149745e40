#!/usr/bin/env bash
# The Python test environment from PyPI: pinned grpcio/protobuf/grpcio-tools, torch 2.13.0 (the
# CPU wheel on disk), ray, pyarrow, transformers/tokenizers, trl 1.16 (tests/test_trl.py), verl
# 0.9.1 and swebench 5.0.2 (both --no-deps: what their code imports is pinned in test.txt; their full sets pull CUDA builds, vLLM,
# wandb and modal's cloud). Then the client's proto stubs regenerated with the pinned grpcio-tools
# (the client itself is not installed: each checkout's tests import their own, see below).
# Idempotent: a venv whose requirement hash matches is reused.
# Prints the venv's path on stdout.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cd "$here/.."

req=clients/python/requirements
venv=$(python_env_dir)
python=${SWE_ENV_BASE_PYTHON:-python3}

if [ ! -f "$venv/.complete" ]; then
  log "python test environment in $venv (first time on this machine: a few minutes)"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
  "${pip[@]}" install -r "$req/test.txt" -c "$req/constraints.txt" 2>&1 | grep -v 'is ignored' >&2 || true
  "${pip[@]}" install --no-deps --ignore-requires-python -r "$req/frameworks-nodeps.txt" 2>&1 | grep -v 'is ignored' >&2 || true
  # Fail here, not in the tests, when anything above did not install.
  "$venv/bin/python" - <<'PY' >&2
import importlib, sys
import torch
assert torch.__version__.startswith("2.13.0") and not torch.version.cuda, f"torch {torch.__version__} is not the CPU 2.13.0 build"
for module in ("grpc", "grpc_tools", "ray", "pyarrow", "transformers", "tokenizers",
               "verl.experimental.agent_loop.agent_loop", "verl.trainer.ppo.core_algos", "swebench.harness.utils",
               "nemo_gym.base_resources_server", "resources_servers.gymnasium", "responses_api_agents.gymnasium_agent.app",
               "trl.trainer.grpo_trainer", "jmespath"):
    importlib.import_module(module)
print("python test environment:", sys.version.split()[0], "torch", torch.__version__)
PY
  touch "$venv/.complete"
  # Environments of older requirement sets are dead weight (GBs each): keep only this one.
  if [ -z "${SWE_ENV_PYTHON_ENV:-}" ]; then
    for old in /var/cache/swe-env/python-*; do
      if [ "$old" != "$venv" ] && [ -d "$old" ]; then rm -rf "$old"; fi
    done
  fi
fi
# The client itself is NOT installed here: this venv is shared by every checkout on the machine, and
# an editable install would point at whichever checkout ran the set-up last (two checkouts would test
# each other's code). Each checkout's tests put their own clients/python first on PYTHONPATH
# (scripts/test-all.sh, clients/python/tests/conftest.py). An install an earlier set-up left is removed.
if "$venv/bin/python" -m pip --disable-pip-version-check show -q swe-env-client >/dev/null 2>&1; then
  "$venv/bin/python" -m pip --disable-pip-version-check -q uninstall -y swe-env-client >&2
fi
# The harness 4.1 and swesmith beside 5.x, for the conformance tests (test/conformance/harness-4.1.txt).
harness41="$venv/harness-4.1"
if [ ! -f "$harness41/.complete" ] || [ test/conformance/harness-4.1.txt -nt "$harness41/.complete" ]; then
  rm -rf "$harness41"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$harness41" -r test/conformance/harness-4.1.txt 2>&1 | grep -v 'is ignored' >&2 || true
  PYTHONPATH="$harness41" "$venv/bin/python" -c 'import swebench, swesmith.profiles; assert swebench.__version__ == "4.1.0", swebench.__version__' >&2
  touch "$harness41/.complete"
fi
# mini-swe-agent from PyPI for its integration test (clients/python/tests/requirements-mini-swe-agent.txt).
msa="$venv/mini-swe-agent"
if [ ! -f "$msa/.complete" ] || [ clients/python/tests/requirements-mini-swe-agent.txt -nt "$msa/.complete" ]; then
  rm -rf "$msa"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$msa" -r clients/python/tests/requirements-mini-swe-agent.txt 2>&1 | grep -v 'is ignored' >&2 || true
  PYTHONPATH="$msa" MSWEA_SILENT_STARTUP=1 MSWEA_GLOBAL_CONFIG_DIR="$msa/.config" "$venv/bin/python" -c 'import minisweagent.run.benchmarks.swebench, minisweagent.models.test_models' >&2
  touch "$msa/.complete"
fi
# What NeMo Gym's rollout collector imports beyond the venv (clients/python/tests/requirements-nemo-gym-collector.txt).
collector="$venv/nemo-gym-collector"
if [ ! -f "$collector/.complete" ] || [ clients/python/tests/requirements-nemo-gym-collector.txt -nt "$collector/.complete" ]; then
  rm -rf "$collector"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$collector" -r clients/python/tests/requirements-nemo-gym-collector.txt 2>&1 | grep -v 'is ignored' >&2 || true
  PYTHONPATH="$collector" "$venv/bin/python" -c 'import nemo_gym.rollout_collection' >&2
  touch "$collector/.complete"
fi
# The Kubernetes schema validator for the manifest test (deploy/kubernetes/validate-requirements.txt).
validator="$venv/kubernetes-validate"
if [ ! -f "$validator/.complete" ] || [ deploy/kubernetes/validate-requirements.txt -nt "$validator/.complete" ]; then
  rm -rf "$validator"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$validator" -r deploy/kubernetes/validate-requirements.txt 2>&1 | grep -v 'is ignored' >&2 || true
  PYTHONPATH="$validator" "$venv/bin/python" -c 'import kubernetes_validate' >&2
  touch "$validator/.complete"
fi
# OpenEnv from PyPI in a venv of its own (clients/python/tests/requirements-openenv.txt says why),
# for clients/python/tests_openenv (the OpenEnv server over swe-env, swe_env/openenv).
openenv_venv="$venv/openenv"
if [ ! -f "$openenv_venv/.complete" ] || [ clients/python/tests/requirements-openenv.txt -nt "$openenv_venv/.complete" ]; then
  rm -rf "$openenv_venv"
  "$python" -m venv "$openenv_venv"
  "$openenv_venv/bin/python" -m pip --disable-pip-version-check -q install -r clients/python/tests/requirements-openenv.txt 2>&1 | grep -v 'is ignored' >&2 || true
  "$openenv_venv/bin/python" -c 'import grpc, pytest, openenv.core.env_server.http_server, openenv.core.mcp_client; from importlib.metadata import version; assert version("openenv") == "0.10.0"' >&2
  touch "$openenv_venv/.complete"
fi
# pytest with plugins that make, rerun or rebuild reports themselves (flaky, pytest-forked,
# pytest-rerunfailures), in a venv of its own, for test/reward/witness-host.test.ts.
witness_venv="$venv/pytest-witness"
if [ ! -f "$witness_venv/.complete" ] || [ test/reward/witness-plugins.txt -nt "$witness_venv/.complete" ]; then
  rm -rf "$witness_venv"
  "$python" -m venv "$witness_venv"
  "$witness_venv/bin/python" -m pip --disable-pip-version-check -q install -r test/reward/witness-plugins.txt 2>&1 | grep -v 'is ignored' >&2 || true
  "$witness_venv/bin/python" -c 'import flaky, pytest_forked, pytest_rerunfailures, pytest; assert pytest.__version__ == "9.0.3", pytest.__version__' >&2
  touch "$witness_venv/.complete"
fi
# Harbor (needs Python >= 3.12) in a venv of its own, for tests/test_harbor.py (scripts/setup-harbor-python.sh).
bash "$here/setup-harbor-python.sh" >/dev/null
PYTHON="$venv/bin/python" bash clients/python/scripts/gen_proto.sh >&2
printf '%s\n' "$venv"
