"""Reading what the code under test made without running any of its code, for the grading boot's
witness and hook watch (loaded by path beside them, in no sys.modules): an instance's own
attributes through its class's `__dict__` slot, and the code objects of modules the boot trusts."""


def instance_reader(classes, str_type):
    """read(value, name): an attribute of an instance's own dict, for instances of these classes
    (subclasses too), run nothing of the code under test: the dict is taken through the classes'
    own `__dict__` slot (taken now, before any repository code: a subclass's `__dict__` property is
    never called) and searched by exact-str key (a key of another type could run its `__eq__`)."""
    import types

    getters = []
    for cls in classes:
        for klass in cls.__mro__:
            found = klass.__dict__.get("__dict__")
            if type(found) is types.GetSetDescriptorType:
                getters.append(found)
                break
    dict_type = dict

    def read(value, name):
        for getter in getters:
            try:
                own = getter.__get__(value)
            except TypeError:
                continue
            if type(own) is not dict_type:
                return None
            for key, item in own.items():
                if type(key) is str_type and key == name:
                    return item
            return None
        return None

    return read


def codes_of(module_names, function_type):
    """Every code object of these modules' functions and classes' methods, nested ones included
    (pluggy's own: its hook call path), by id, kept alive in the returned dict."""
    import sys

    found = {}
    stack = []
    for name in module_names:
        module = sys.modules.get(name)
        if module is None:
            continue
        for value in list(vars(module).values()):
            members = list(vars(value).values()) if isinstance(value, type) else [value]
            for member in members:
                member = getattr(member, "__func__", member)
                if isinstance(member, property):
                    members.extend(f for f in (member.fget, member.fset, member.fdel) if f is not None)
                    continue
                if type(member) is function_type:
                    stack.append(member.__code__)
    while stack:
        code = stack.pop()
        if id(code) in found:
            continue
        found[id(code)] = code
        stack.extend(c for c in code.co_consts if type(c) is type(code))
    return found


def plugin_codes(names, function_type):
    """The code of the pristine plugins the boot loaded, every module of their packages."""
    import sys

    tops = {name.split(".")[0] for name in names if type(name) is str}
    modules = tuple(m for m in list(sys.modules) if m.split(".")[0] in tops)
    return codes_of(modules, function_type)
