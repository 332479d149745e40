# Gives a network-less sandbox's network namespace (loopback only) a default route into loopback,
# where packets to any other address are dropped: a connect to a routable-looking address then
# waits out its timeout, as it does on a host whose packets are lost, instead of failing at once
# with "Network is unreachable" (psf/requests' TestTimeout tests need the former). Nothing can leave:
# the namespace has no device but loopback. The resolver's nameservers get unreachable routes, so a
# name lookup still fails at once rather than waiting out the resolver's timeouts.
# Run by the server with NET_ADMIN, as root, before any code of the agent's has run in the sandbox;
# uses the image's own `ip` or, without it, its python (netlink). Prints "route: ip|python", then
# waits for the server's "ok" before it exits 0: an engine may report the helper's exit before the
# attach stream has handed over what it printed, and that line is how the server knows the route is
# set. Exit 7: the server did not acknowledge the line (its answer never came, or was not "ok").
announce() {
  echo "route: $1"
  read -r -t 60 reply || exit 7
  # The answer ends the line: Podman's engine hands its attach request's body (the client's options,
  # a JSON object without a newline) to the helper's stdin ahead of it.
  case $reply in *ok) exit 0 ;; *) exit 7 ;; esac
}
nameservers=$(awk '$1 == "nameserver" && $2 ~ /^[0-9.]+$/ { print $2 }' /etc/resolv.conf 2>/dev/null)
export SWE_ENV_NAMESERVERS="$nameservers"
if command -v ip >/dev/null 2>&1; then
  ip route replace default dev lo || exit 3
  for ns in $nameservers; do ip route replace unreachable "$ns/32" || exit 3; done
  announce ip
fi
# The python program is passed with -c: a here-document may need a temporary file, and the
# helper that runs this has a read-only root.
code='
import os, socket, struct

RTM_NEWROUTE, NLMSG_ERROR = 24, 2
FLAGS = 0x1 | 0x4 | 0x400 | 0x100  # REQUEST, ACK, CREATE, REPLACE
RT_TABLE_MAIN, RTPROT_BOOT = 254, 3
RT_SCOPE_UNIVERSE, RT_SCOPE_LINK = 0, 253
RTN_UNICAST, RTN_UNREACHABLE = 1, 7
RTA_DST, RTA_OIF = 1, 4

def add_route(sock, seq, dst, prefix, kind, oif):
    attrs = b""
    if dst is not None:
        attrs += struct.pack("HH", 8, RTA_DST) + socket.inet_aton(dst)
    if oif is not None:
        attrs += struct.pack("HHI", 8, RTA_OIF, oif)
    scope = RT_SCOPE_LINK if kind == RTN_UNICAST else RT_SCOPE_UNIVERSE
    body = struct.pack("BBBBBBBBI", socket.AF_INET, prefix, 0, 0, RT_TABLE_MAIN, RTPROT_BOOT, scope, kind, 0) + attrs
    sock.send(struct.pack("IHHII", 16 + len(body), RTM_NEWROUTE, FLAGS, seq, 0) + body)
    reply = sock.recv(65536)
    if struct.unpack("H", reply[4:6])[0] == NLMSG_ERROR:
        error = struct.unpack("i", reply[16:20])[0]
        if error != 0:
            raise OSError(-error, os.strerror(-error))

sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
sock.bind((0, 0))
add_route(sock, 1, None, 0, RTN_UNICAST, socket.if_nametoindex("lo"))
for seq, ns in enumerate(os.environ.get("SWE_ENV_NAMESERVERS", "").split(), start=2):
    add_route(sock, seq, ns, 32, RTN_UNREACHABLE, None)
'
for py in python3 python /opt/miniconda3/bin/python3 /opt/conda/bin/python3 /usr/local/bin/python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  "$py" -c "$code" || exit 3
  announce python
done
echo "neither ip nor python in the image" >&2
exit 4
