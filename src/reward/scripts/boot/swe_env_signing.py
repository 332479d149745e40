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
    type_error = TypeError
    str_type, int_type, float_type, bool_type, none_type = str, int, float, bool, type(None)
    dict_type, list_type, tuple_type = dict, list, tuple

    def plain(value, depth=0):
        """Exact built-in types only, all the way down (what the C encoder writes without calling
        anything of the value's)."""
        kind = type(value)
        if kind is str_type or kind is int_type or kind is float_type or kind is bool_type or kind is none_type:
            return True
        if depth > 32:
            return False
        if kind is dict_type:
            for key, item in value.items():
                if type(key) is not str_type or not plain(item, depth + 1):
                    return False
            return True
        if kind is list_type or kind is tuple_type:
            for item in value:
                if not plain(item, depth + 1):
                    return False
            return True
        return False

    def line(record):
        if not plain(record):
            # A value the code under test made (a dict subclass from a replaced os.path function
            # in the recorder's lists): the C encoder would call its methods. Never encoded.
            raise type_error("a record holding other than plain values")
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
