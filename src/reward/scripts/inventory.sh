# The pristine image's Python, read before anything of the patch is on disk, from /, isolated
# from the environment: its pytest plugins (pytest11 entry points, by module), which distribution
# owns each top-level entry of each site-packages directory, and which distributions are the
# repository itself (installed from the working directory). One JSON line.
# Arguments: the repository directory.
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate && conda activate testbed
fi
cd / || exit 3
py=$(command -v python || command -v python3) || { echo '{}'; exit 0; }
"$py" -I - "$1" <<'PY' 2>/dev/null || echo '{}'
import json
import sys

if not hasattr(sys, "addaudithook"):
    # Before Python 3.8: no audit hooks, so no monitor and no recorder (the grading reads the log).
    print(json.dumps({"audit_hooks": False}))
    sys.exit(0)

import importlib.metadata as m
import os
import re

workdir = os.path.realpath(sys.argv[1])


def norm(name):
    return re.sub(r"[-_.]+", "-", name or "").lower()


try:
    eps = m.entry_points(group="pytest11")
except TypeError:
    eps = m.entry_points().get("pytest11", [])
plugins = sorted({ep.value.split(":")[0].strip() for ep in eps})
owners = {}
repo = set()
for dist in m.distributions():
    base = getattr(dist, "_path", None)
    if base is None:
        continue
    base = os.path.realpath(str(base))
    site = os.path.dirname(base)
    name = norm(dist.metadata["Name"])
    tops = {os.path.basename(base)}
    for f in dist.files or []:
        first = str(f).split("/")[0]
        if first and first != "..":
            tops.add(first)
    for line in (dist.read_text("top_level.txt") or "").split():
        tops.update((line, line + ".py"))
    for top in tops:
        owners.setdefault(site + "/" + top, []).append(name)
    direct = (dist.read_text("direct_url.json") or "").replace(" ", "")
    if base.startswith(workdir + "/") or ('"url":"file://' + workdir + '"') in direct:
        repo.add(name)
for site in {os.path.dirname(os.path.realpath(str(getattr(d, "_path", "")))) for d in m.distributions()}:
    try:
        for entry in os.listdir(site):
            if entry.endswith(".egg-link"):
                with open(os.path.join(site, entry)) as f:
                    if os.path.realpath(f.readline().strip()) == workdir:
                        repo.add(norm(entry[: -len(".egg-link")]))
    except OSError:
        pass
print(json.dumps({"plugins": plugins, "owners": owners, "repo_dists": sorted(repo), "audit_hooks": True}))
PY
exit 0
