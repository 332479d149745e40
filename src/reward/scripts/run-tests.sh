# Runs the test command under a hard timeout (exit 124 when it expires), in the conda env of images
# built by the SWE-bench harness when there is one. The grader also limits the whole exec from
# outside: code under test that stops this timeout only runs into that one (scored as a timeout).
# Arguments: the repository directory, the timeout in seconds, the test script.
cd "$1" || exit 3
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate && conda activate testbed
fi
if [ -n "${SWE_ENV_RECORDER_MODULE:-}" ]; then
  # Plugins load only by name: the recorder (already imported by the boot) and the pristine
  # image's own plugins, which the boot names on pytest's command line; entry points a
  # repository-root *.dist-info declares are not looked at.
  export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
fi
# One pipe for both streams: the engine relays stdout and stderr as separate streams whose order
# between them is lost, and cargo's progress lines (stderr) then landed inside libtest's result
# lines (stdout), leaving a test line unreadable: a listed test or a canary read as missing.
exec timeout -s TERM -k 5 "$2" bash -c "$3" < /dev/null 2>&1
