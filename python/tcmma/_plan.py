"""Arms, resolution and planning of one tile-MMA call."""
import dataclasses
import typing

from ._core import (Arm, Decline, Fp16, Init, Keep, Operand, Prec, Prefer, Scope, Space,
                    Status, Swizzle, call, check, dataclass_of, enum_arg, ffi, int_arg, lib,
                    new_error, new_struct, prec_arg, str_arg, to_dataclass)
from .errors import Declined

ArmInfo = dataclass_of("tcmma_arm_info", "ArmInfo")
Census = dataclass_of("tcmma_census", "Census")


def arms(cc: int = 0) -> typing.List[ArmInfo]:
    """Every arm a device of compute capability cc runs (0: every arm), in table
    order, as ArmInfo (the row of tables/arms.def)."""
    int_arg(cc, "cc")
    count = ffi.new("size_t *")
    call(lib.tcmma_descriptor, cc, ffi.NULL, 0, count)
    out = ffi.new("tcmma_arm[]", max(count[0], 1))
    call(lib.tcmma_descriptor, cc, out, count[0], count)
    return [to_dataclass(lib.tcmma_arm_get(out[i])) for i in range(count[0])]


def arm_info(arm) -> ArmInfo:
    """The row of one arm (an Arm or its marker, "mma-bf16")."""
    a = enum_arg(Arm, arm, "arm", lib.tcmma_arm_parse, "tcmma_arm")
    p = lib.tcmma_arm_get(a)
    if p == ffi.NULL:
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "arm %r has no row" % (arm,))
    return to_dataclass(p)


def _numerics(fp16, tf32, prefer, saturate):
    n = lib.tcmma_numerics_default()
    n.fp16 = enum_arg(Fp16, fp16, "fp16", lib.tcmma_fp16_mode_parse, "tcmma_fp16_mode")
    n.prefer = enum_arg(Prefer, prefer, "prefer", lib.tcmma_prefer_parse, "tcmma_prefer")
    for name, v in (("tf32", tf32), ("saturate", saturate)):
        if not isinstance(v, bool):
            raise TypeError("%s must be a bool, not %r" % (name, v))
    n.tf32, n.saturate = tf32, saturate
    return n


def resolve(d, a, b, scope="statement", cc: int = 0, fp16="wide", tf32: bool = False,
            prefer="ptx", saturate: bool = False) -> Arm:
    """The arm that renders storage triple (d, a, b) (Prec or names: "f32") under
    the numerics policy in scope on a device of cc (0: any). Raises TcmmaError
    with status NO_ARM or FLOOR, InvalidError for bad names."""
    t = ffi.new("tcmma_triple *")
    t.d = prec_arg(d, "d precision")
    t.a = prec_arg(a, "a precision")
    t.b = prec_arg(b, "b precision")
    n = ffi.new("tcmma_numerics *", _numerics(fp16, tf32, prefer, saturate))
    sc = enum_arg(Scope, scope, "scope", lib.tcmma_scope_parse, "tcmma_scope")
    out = ffi.new("tcmma_arm *")
    call(lib.tcmma_resolve, t[0], n, sc, int_arg(cc, "cc"), out)
    return Arm(out[0])


@dataclasses.dataclass
class Coord:
    """One origin coordinate: value + expr (a C int expression, a multiple of
    multiple; None: none)."""
    value: int = 0
    expr: typing.Optional[str] = None
    multiple: int = 0


@dataclasses.dataclass
class OperandDesc:
    """One operand as stored (tcmma_operand_desc): precision, transposed, leading
    dimension (0: dense), space, swizzle, origin (row0, col0: int or Coord) and,
    for block-scaled precisions, the scale pointer expression and its ld."""
    prec: typing.Union[str, Prec] = "f32"
    transposed: bool = False
    ld: int = 0
    space: typing.Union[str, Space] = "global"
    swizzle: typing.Union[str, Swizzle] = "none"
    row0: typing.Union[int, Coord] = 0
    col0: typing.Union[int, Coord] = 0
    scale: typing.Optional[str] = None
    scale_ld: int = 0


def _coord(dst, v, what, keep):
    c = v if isinstance(v, Coord) else Coord(value=v)
    dst.value = int_arg(c.value, what + " value", bits=64)
    dst.expr = keep.cstr(str_arg(c.expr, what + " expr", optional=True))
    dst.multiple = int_arg(c.multiple, what + " multiple", bits=64)


def fill_operand(dst, v, role, keep):
    if isinstance(v, (str, Prec)):
        v = OperandDesc(prec=v)
    if not isinstance(v, OperandDesc):
        raise TypeError("operand %s must be a precision name, a Prec or an OperandDesc, not %r"
                        % (role, v))
    dst.prec = prec_arg(v.prec, role + " precision")
    if not isinstance(v.transposed, bool):
        raise TypeError("%s transposed must be a bool, not %r" % (role, v.transposed))
    dst.transposed = v.transposed
    dst.ld = int_arg(v.ld, role + " ld", bits=64)
    dst.space = enum_arg(Space, v.space, role + " space")
    dst.swizzle = enum_arg(Swizzle, v.swizzle, role + " swizzle", lib.tcmma_swizzle_parse,
                           "tcmma_swizzle")
    _coord(dst.row0, v.row0, role + " row0", keep)
    _coord(dst.col0, v.col0, role + " col0", keep)
    dst.scale = keep.cstr(str_arg(v.scale, role + " scale", optional=True))
    dst.scale_ld = int_arg(v.scale_ld, role + " scale_ld", bits=64)


class Plan:
    """An accepted tile-MMA plan (tcmma_plan): arm, tiles, ldmatrix operands; the
    renderers take it. Holds the strings its call borrows."""

    def __init__(self, cdata, keep):
        self._p = cdata
        self._keep = keep

    arm = property(lambda self: Arm(self._p.arm))
    mt = property(lambda self: self._p.mt)
    nt = property(lambda self: self._p.nt)
    kt = property(lambda self: self._p.kt)
    a_ldmatrix = property(lambda self: bool(self._p.a_ldmatrix))
    b_ldmatrix = property(lambda self: bool(self._p.b_ldmatrix))
    m = property(lambda self: self._p.call.m)
    n = property(lambda self: self._p.call.n)
    k = property(lambda self: self._p.call.k)
    scope = property(lambda self: Scope(self._p.call.scope))

    def census(self) -> Census:
        """What the plan's emission loads (tcmma_plan_census)."""
        out = ffi.new("tcmma_census *")
        call(lib.tcmma_plan_census, self._p, out)
        return to_dataclass(out)

    def operand_elems(self, op, outer: int = 1) -> int:
        """Elements of op's buffer in tcmma_render_kernel's layout (op "c" is d)."""
        o = enum_arg(Operand, op, "operand", lib.tcmma_operand_parse, "tcmma_operand")
        return lib.tcmma_kernel_operand_elems(self._p, int_arg(outer, "outer"), o)

    def operand_index(self, op, step: int, i: int, j: int) -> int:
        """Element index of role element (i, j) of tile step in op's kernel buffer."""
        o = enum_arg(Operand, op, "operand", lib.tcmma_operand_parse, "tcmma_operand")
        return lib.tcmma_kernel_operand_index(self._p, o, int_arg(step, "step"),
                                              int_arg(i, "i"), int_arg(j, "j"))

    def __repr__(self):
        return "<tcmma.Plan %s %dx%dx%d tiles %dx%dx%d>" % (
            self.arm.label, self.m, self.n, self.k, self.mt, self.nt, self.kt)


def plan(m: int, n: int, k: int, d="f32", a="f16", b="f16", *, scope="statement",
         cc: int = 0, fp16="wide", tf32: bool = False, prefer="ptx", saturate: bool = False,
         arm: typing.Optional[str] = None, init="load", alpha: typing.Optional[str] = None,
         beta: typing.Optional[str] = None, lane: typing.Optional[str] = None,
         warps: int = 0, warp: typing.Optional[str] = None, registers: int = 0) -> Plan:
    """Plans D[m x n] += A[m x k] B[k x n] (d, a, b: precision names, Prec or
    OperandDesc). Returns a Plan, raises Declined(reason, message) when the plan
    declines, InvalidError / TypeError for malformed arguments."""
    keep = Keep()
    c = new_struct("tcmma_call")
    c.m, c.n, c.k = int_arg(m, "m"), int_arg(n, "n"), int_arg(k, "k")
    fill_operand(c.d, d, "d", keep)
    fill_operand(c.a, a, "a", keep)
    fill_operand(c.b, b, "b", keep)
    c.scope = enum_arg(Scope, scope, "scope", lib.tcmma_scope_parse, "tcmma_scope")
    c.cc = int_arg(cc, "cc")
    c.numerics = _numerics(fp16, tf32, prefer, saturate)
    c.arm = keep.cstr(str_arg(arm, "arm", optional=True))
    c.init = enum_arg(Init, init, "init", lib.tcmma_init_parse, "tcmma_init")
    c.alpha = keep.cstr(str_arg(alpha, "alpha", optional=True))
    c.beta = keep.cstr(str_arg(beta, "beta", optional=True))
    c.lane = keep.cstr(str_arg(lane, "lane", optional=True))
    c.warps = int_arg(warps, "warps")
    c.warp = keep.cstr(str_arg(warp, "warp", optional=True))
    c.registers = int_arg(registers, "registers")
    keep.items.append(c)
    out = new_struct("tcmma_plan")
    err = new_error()
    st = lib.tcmma_plan_call(c, out, err)
    if st == lib.TCMMA_DECLINED:
        raise Declined(Status.DECLINED, ffi.string(out.message).decode(),
                       reason=Decline(out.reason))
    check(st, err)
    return Plan(out, keep)


def fragment_layout(arm, op, lane: int, reg: int, elem: int) -> typing.Tuple[int, int]:
    """(row, col) of element elem of register reg of lane's fragment of operand op
    ("a": m x k, "b": k x n, "c": m x n) of an inline-PTX arm. InvalidError for a
    wmma arm (opaque layout) or an index out of range."""
    a = enum_arg(Arm, arm, "arm", lib.tcmma_arm_parse, "tcmma_arm")
    o = enum_arg(Operand, op, "operand", lib.tcmma_operand_parse, "tcmma_operand")
    row, col = ffi.new("int *"), ffi.new("int *")
    call(lib.tcmma_fragment_layout, a, o, int_arg(lane, "lane"), int_arg(reg, "reg"),
         int_arg(elem, "elem"), row, col)
    return row[0], col[0]


def swizzle_offset(swizzle, row: int, col_byte: int, ld_bytes: int) -> int:
    """Byte offset of byte col_byte of stored row `row` in a tile of swizzle with
    rows of ld_bytes; InvalidError for input the swizzle does not take."""
    sw = enum_arg(Swizzle, swizzle, "swizzle", lib.tcmma_swizzle_parse, "tcmma_swizzle")
    off = lib.tcmma_swizzle_offset(sw, int_arg(row, "row", bits=64),
                                   int_arg(col_byte, "col_byte", bits=64),
                                   int_arg(ld_bytes, "ld_bytes", bits=64))
    if off < 0:
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "swizzle %s does not take row %d, byte %d of rows of "
                           "%d bytes" % (Swizzle(sw).label, row, col_byte, ld_bytes))
    return off
