# The plan's steps before the tests, as the harness's eval script runs them after the patch: its
# eval commands (locale, exports, per-row extras), then the install step, in the conda env of
# images built by the SWE-bench harness when there is one. The sandbox has no network, so pip is
# told not to look for an index (a re-install needing a download fails fast and says so).
# Arguments: the repository directory, the eval commands (a script), the install command ('' for none).
# Exit: the install's status (0 when none ran); the harness goes on to the tests whatever it is.
set -o pipefail
activate() {
  cd "$1" || exit 3
  if [ -f /opt/miniconda3/bin/activate ]; then
    . /opt/miniconda3/bin/activate && conda activate testbed
  fi
}
activate "$1"
eval "$2" < /dev/null
activate "$1"
[ -n "$3" ] || exit 0
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
eval "$3" < /dev/null
