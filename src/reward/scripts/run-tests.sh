# Runs the test command under a hard timeout (exit 124 when it expires), in the conda env of images
# built by the SWE-bench harness when there is one.
# Arguments: the repository directory, the timeout in seconds, the test command.
cd "$1" || exit 3
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate && conda activate testbed
fi
exec timeout -s TERM -k 5 "$2" bash -c "$3" < /dev/null
