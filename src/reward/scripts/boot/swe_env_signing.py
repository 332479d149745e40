"""The grading channel's line format, signed (sitecustomize.py, beside this file, loads it by path
before any code of the repository runs).

`json.dumps` builds a `json.JSONEncoder` and `hmac.new` an `hmac.HMAC`, each looked up in its
module at every call: code under test that replaced either would be handed every record, or the
key. These take the C encoder and the C hash once, now, and call nothing else.
"""


def make_signer(key, hashlib_module, json_module):
    """line(record) -> the channel's line, `<hex HMAC-SHA256 of the body> <body>\\n`, as UTF-8."""
    sha256 = hashlib_module.sha256
    block = 64
    if len(key) > block:
        key = sha256(key).digest()
    key = key + b"\x00" * (block - len(key))
    inner_pad = bytes(b ^ 0x36 for b in key)
    outer_pad = bytes(b ^ 0x5C for b in key)
    # The inner and outer hashes with the padded key taken in, copied for each record: the key
    # itself is kept nowhere.
    inner = sha256(inner_pad)
    outer = sha256(outer_pad)
    del key, inner_pad, outer_pad
    encode = _make_encoder(json_module)

    def line(record):
        body = encode(record).encode("utf-8")
        h = inner.copy()
        h.update(body)
        mac = outer.copy()
        mac.update(h.digest())
        return mac.hexdigest().encode("ascii") + b" " + body + b"\n"

    return line


def _make_encoder(json_module):
    """JSON with sorted keys and no spaces, as `json.dumps(o, sort_keys=True, separators=(",", ":"))`
    writes it, by the C encoder alone (plain values only: anything else is refused)."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:
        dumps = json_module.dumps
        return lambda record: dumps(record, sort_keys=True, separators=(",", ":"))
    type_error = TypeError

    def refuse(value):
        raise type_error("not a plain value")

    iterencode = make_encoder(None, refuse, encode_basestring_ascii, None, ":", ",", True, False, True)
    join = "".join

    def encode(record):
        return join(iterencode(record, 0))

    return encode
