"""The thin layer over cffi: enums built from the headers' enum types, status
checking, argument conversion, and dataclasses built from struct types."""
import dataclasses
import enum
import typing

from ._ffi import ffi, lib
from .errors import error_class


def _s(p):
    return ffi.string(p).decode() if p != ffi.NULL else None


def _make_enum(cls_name, ctype, prefix, name_fn=None, doc=""):
    """An IntEnum of the C enum ctype's members (values from the headers),
    less the prefix and the _COUNT member; .label is the library's name."""
    members = {}
    for value, cname in sorted(ffi.typeof(ctype).elements.items()):
        short = cname[len(prefix):] if cname.startswith(prefix) else cname
        if short == "COUNT" or cname.endswith("_COUNT"):
            continue
        members[short] = value
    e = enum.IntEnum(cls_name, members)
    e.__doc__ = doc or "The C enum %s (values from the headers)." % ctype
    e.__module__ = "tcmma"
    if name_fn is not None:
        e.label = property(lambda self: _s(name_fn(int(self))))
    else:
        e.label = property(lambda self: self.name.lower())
    e.__str__ = lambda self: self.label or self.name.lower()
    return e


Status = _make_enum("Status", "tcmma_status", "TCMMA_", lib.tcmma_status_name)
Status.meaning = property(lambda self: _s(lib.tcmma_status_meaning(int(self))))
Prec = _make_enum("Prec", "tcmma_prec", "TCMMA_PREC_", lib.tcmma_prec_name)
Arm = _make_enum("Arm", "tcmma_arm", "TCMMA_ARM_", lib.tcmma_arm_marker)
Form = _make_enum("Form", "tcmma_form", "TCMMA_FORM_", lib.tcmma_form_name)
LdmatrixRule = _make_enum("LdmatrixRule", "tcmma_ldmatrix_rule", "TCMMA_LDMATRIX_",
                          lib.tcmma_ldmatrix_rule_text)
Scope = _make_enum("Scope", "tcmma_scope", "TCMMA_SCOPE_", lib.tcmma_scope_name)
Fp16 = _make_enum("Fp16", "tcmma_fp16_mode", "TCMMA_FP16_")
Prefer = _make_enum("Prefer", "tcmma_prefer", "TCMMA_PREFER_")
Space = _make_enum("Space", "tcmma_space", "TCMMA_SPACE_", lib.tcmma_space_name)
Decline = _make_enum("Decline", "tcmma_decline", "TCMMA_DECLINE_", lib.tcmma_decline_name)
Decline.rule = property(lambda self: _s(lib.tcmma_decline_rule(int(self))))
GemmDecline = _make_enum("GemmDecline", "tcmma_gemm_decline", "TCMMA_GEMM_DECLINE_",
                         lib.tcmma_gemm_decline_name)
GemmDecline.rule = property(lambda self: _s(lib.tcmma_gemm_decline_rule(int(self))))
Init = _make_enum("Init", "tcmma_init", "TCMMA_INIT_", lib.tcmma_init_name)
Swizzle = _make_enum("Swizzle", "tcmma_swizzle", "TCMMA_SWIZZLE_", lib.tcmma_swizzle_name)
Operand = _make_enum("Operand", "tcmma_operand", "TCMMA_OPERAND_", lib.tcmma_operand_name)
Dialect = _make_enum("Dialect", "tcmma_dialect", "TCMMA_DIALECT_")
Target = _make_enum("Target", "tcmma_target", "TCMMA_TARGET_", lib.tcmma_target_name)
PtxSuffix = _make_enum("PtxSuffix", "tcmma_ptx_suffix", "TCMMA_PTX_SUFFIX_",
                       lib.tcmma_ptx_suffix_text)
HitKind = _make_enum("HitKind", "tcmma_hit_kind", "TCMMA_HIT_")
Marker = _make_enum("Marker", "tcmma_marker", "TCMMA_MARKER_", lib.tcmma_marker_text)



def check_enum_names(enums, library_path):
    """The values the headers give each member must be the ones the library
    names the same way (its ID spelled "no-arm" for NO_ARM): a table row moved
    in a library built from other headers keeps every count but not its
    values. LibraryMismatch naming each difference."""
    from ._ffi import LibraryMismatch
    bad = []
    for e in enums:
        for m in e:
            if m.value < 0:
                continue
            if m.name.lower().replace("_", "-") != (m.label or "").lower().replace("_", "-"):
                bad.append("%s.%s = %d is %r in the library" % (e.__name__, m.name, m.value,
                                                                 m.label))
    if bad:
        raise LibraryMismatch("tcmma: %s names enum values differently from the package's "
                              "headers: %s" % (library_path, "; ".join(bad)))


# Enums whose members the library names by their IDs (tables/*.def).
from ._ffi import library_path as _library_path  # noqa: E402
check_enum_names([Status, Prec, Arm, Scope, Space, Decline, GemmDecline, Init, Operand, Form,
                  Target], _library_path)

# Which Python enum a struct field of a C enum type converts to.
_ENUM_OF = {"tcmma_status": Status, "tcmma_prec": Prec, "tcmma_arm": Arm, "tcmma_form": Form,
            "tcmma_ldmatrix_rule": LdmatrixRule, "tcmma_scope": Scope, "tcmma_fp16_mode": Fp16,
            "tcmma_prefer": Prefer, "tcmma_space": Space, "tcmma_decline": Decline,
            "tcmma_gemm_decline": GemmDecline, "tcmma_init": Init, "tcmma_swizzle": Swizzle,
            "tcmma_operand": Operand, "tcmma_target": Target, "tcmma_ptx_suffix": PtxSuffix,
            "tcmma_hit_kind": HitKind, "tcmma_marker": Marker}


# ---- errors ---------------------------------------------------------------

def new_error():
    return ffi.new("tcmma_error *")


def check(status, err, **extra):
    """Raises the exception of a failed status with err's message."""
    if status == lib.TCMMA_OK:
        return
    st = Status(status)
    msg = ffi.string(err.message).decode(errors="replace") if err is not None else ""
    raise error_class(st.name)(st, msg or st.meaning, **extra)


def call(fn, *args):
    """fn(*args, &err), raising on failure."""
    err = new_error()
    check(fn(*args, err), err)


# ---- struct creation: through the library's *_default() where it has one ----

def new_struct(ctype, library=None):
    """A fresh ctype (a struct name) from tcmma_<x>_init(p, sizeof) or
    tcmma_<x>_default() when the library (default: libtcmma) has one, so the
    defaults are the library's; else zeroed with a `size` field, if any, set
    to its sizeof (the documented defaults of such structs)."""
    library = lib if library is None else library
    p = ffi.new(ctype + " *")
    init = getattr(library, ctype + "_init", None)
    if init is not None:  # fills the package's own sizeof: never past its end
        init(p, ffi.sizeof(ctype))
        return p
    try:
        fn = getattr(library, ctype + "_default")
    except AttributeError:
        fn = None
    if fn is not None:
        p[0] = fn()
    elif "size" in _field_names(ctype):
        p.size = ffi.sizeof(ctype)
    return p


def _field_names(ctype):
    return [f for f, _ in ffi.typeof(ctype).fields]


# ---- argument conversion: names or enums in, exceptions naming the value ----

def _parse_with(parse, ctype, text):
    out = ffi.new(ctype + " *")
    err = new_error()
    check(parse(text.encode(), out, err), err)
    return out[0]


def enum_arg(e, value, what, parse=None, ctype=None):
    """An enum argument from e's member, its name/label (parsed by the library's
    parser when it has one) or its int value, else an exception naming value."""
    if isinstance(value, e):
        return int(value)
    if isinstance(value, str):
        if parse is not None:
            return _parse_with(parse, ctype, value)
        for m in e:
            if value.lower() in (m.name.lower(), (m.label or "").lower()):
                return int(m)
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "unknown %s %r (expected one of %s)" % (
            what, value, ", ".join(m.label or m.name.lower() for m in e)))
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be a %s or its name, not %r (%s)"
                        % (what, e.__name__, value, type(value).__name__))
    try:
        return int(e(value))
    except ValueError:
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "%s %d is out of range" % (what, value)) from None


def prec_arg(value, what="precision"):
    return enum_arg(Prec, value, what, lib.tcmma_prec_parse, "tcmma_prec")


def int_arg(value, what, lo=None, hi=None, bits=32):
    """An int argument for a C int (bits 32) or long (64), within [lo, hi] when
    given; TypeError for a non-int, InvalidError naming the value otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %r (%s)" % (what, value, type(value).__name__))
    lo = -(1 << (bits - 1)) if lo is None else lo
    hi = (1 << (bits - 1)) - 1 if hi is None else hi
    if not lo <= value <= hi:
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "%s %d is out of range (expected %d..%d)"
                           % (what, value, lo, hi))
    return value


def str_arg(value, what, optional=False):
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %r (%s)" % (what, value, type(value).__name__))
    if "\0" in value:
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "%s %r holds a NUL byte" % (what, value))
    return value


class Keep:
    """C strings that borrowed pointers in a struct refer to, kept alive."""

    def __init__(self):
        self.items = []

    def cstr(self, text):
        if text is None:
            return ffi.NULL
        p = ffi.new("char[]", text.encode())
        self.items.append(p)
        return p


# ---- dataclasses from struct types ---------------------------------------

_CLASSES = {}


def _py_type(ctype):
    if ctype.kind == "enum":
        return _ENUM_OF.get(ctype.cname.replace("enum ", ""), int)
    if ctype.kind == "primitive":
        if ctype.cname in ("_Bool", "bool"):
            return bool
        if ctype.cname in ("float", "double"):
            return float
        if ctype.cname == "char":
            return str
        return int
    if ctype.kind == "array":
        return str if ctype.item.cname == "char" else list
    if ctype.kind == "pointer" and ctype.item.cname == "char":
        return typing.Optional[str]
    if ctype.kind == "struct":
        return dataclass_of(ctype.cname)
    return object


def dataclass_of(ctype, name=None, skip=()):
    """A frozen dataclass with the fields of struct ctype, typed from the C types
    (built from the declarations, so it follows the headers)."""
    key = (ctype, skip)
    if key not in _CLASSES:
        t = ffi.typeof(ctype)
        fields = [(f, _py_type(ft.type)) for f, ft in t.fields if f not in skip
                  and not (ft.type.kind == "pointer" and ft.type.item.cname != "char")
                  and ft.type.kind != "function"]
        cls_name = name or "".join(w.capitalize() for w in ctype.replace("tcmma_", "").split("_"))
        cls = dataclasses.make_dataclass(cls_name, fields, frozen=True)
        cls.__module__ = "tcmma"
        cls.__doc__ = "The fields of %s (include/tcmma), as Python values." % ctype
        _CLASSES[key] = cls
    return _CLASSES[key]


def _value(ctype, v):
    if ctype.kind == "enum":
        e = _ENUM_OF.get(ctype.cname.replace("enum ", ""))
        try:
            return e(v) if e is not None else v
        except ValueError:
            return v
    if ctype.kind == "primitive" and ctype.cname == "char":
        return v.decode() if isinstance(v, bytes) else v
    if ctype.kind == "array":
        if ctype.item.cname == "char":
            return ffi.string(v).decode(errors="replace")
        return [_value(ctype.item, x) for x in v]
    if ctype.kind == "pointer" and ctype.item.cname == "char":
        return _s(v)
    if ctype.kind == "struct":
        return to_dataclass(v)
    return v


def to_dataclass(cdata, name=None, skip=()):
    """cdata (a struct or a pointer to one) as its dataclass_of value."""
    t = ffi.typeof(cdata)
    if t.kind == "pointer":
        t, cdata = t.item, cdata[0]
    cls = dataclass_of(t.cname, name, skip)
    kw = {}
    for f in dataclasses.fields(cls):
        ft = dict(t.fields)[f.name].type
        kw[f.name] = _value(ft, getattr(cdata, f.name))
    return cls(**kw)
