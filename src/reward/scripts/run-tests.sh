# Runs the test command under a hard timeout (exit 124 when it expires), in the conda env of images
# built by the SWE-bench harness when there is one.
# Arguments: the repository directory, the timeout in seconds, the test command.
cd "$1" || exit 3
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate && conda activate testbed
fi
if [ -n "${SWE_ENV_RECORDER_DIR:-}" ]; then
  # swe-env's result recorder, loaded from outside the repository (see swe_env_recorder.py).
  export PYTHONPATH="$SWE_ENV_RECORDER_DIR${PYTHONPATH:+:$PYTHONPATH}"
  export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }-p swe_env_recorder"
fi
exec timeout -s TERM -k 5 "$2" bash -c "$3" < /dev/null
