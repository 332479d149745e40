#!/usr/bin/env bash
# Regenerates swe_env/_proto from ../../proto with the pinned grpcio-tools (requirements/test.txt),
# then makes the imports relative so the package works wherever it is installed.
# PYTHON: an interpreter with grpcio-tools (scripts/setup-python.sh passes the test venv's).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
proto_root=$(cd "$here/../../proto" && pwd)
out="$here/swe_env/_proto"
"${PYTHON:-python3}" -m grpc_tools.protoc -I "$proto_root" --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" \
  "$proto_root/swe_env/v1/swe_env.proto"
sed -i 's/^from swe_env\.v1 import swe_env_pb2 as/from . import swe_env_pb2 as/' "$out/swe_env/v1/swe_env_pb2_grpc.py"
touch "$out/__init__.py" "$out/swe_env/__init__.py" "$out/swe_env/v1/__init__.py"
