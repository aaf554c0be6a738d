"""Whole GEMM kernels: D = alpha*A*B + beta*C (include/tcmma/gemm.h)."""
import typing

from ._core import (GemmDecline, Keep, Status, check, dataclass_of, ffi, int_arg, lib,
                    new_error, new_struct, str_arg, to_dataclass)
from ._plan import _numerics, fill_operand
from ._render import _NO_NAMES, _dialect, _run
from .errors import Declined

GemmFigures = dataclass_of("tcmma_gemm_plan", "GemmFigures", skip=("call",))
GemmInfo = dataclass_of("tcmma_gemm_info", "GemmInfo", skip=("size",))


class GemmPlan:
    """An accepted GEMM plan; .figures has every figure of tcmma_gemm_plan
    (grid, threads, shared_bytes, registers, census, ...), .info those of
    tcmma_gemm_info (alignment classes, loader, shapes served, batch,
    split-K workspace)."""

    def __init__(self, cdata, keep, opts, info):
        self._p, self._keep, self._opts = cdata, keep, opts
        self.figures = to_dataclass(cdata, "GemmFigures", skip=("call",))
        self.info = to_dataclass(info, "GemmInfo", skip=("size",))

    grid = property(lambda self: tuple(self._p.grid))
    threads = property(lambda self: self._p.threads)
    shared_bytes = property(lambda self: self._p.shared_bytes)
    name = property(lambda self: ffi.string(self._p.call.name).decode()
                    if self._p.call.name != ffi.NULL else "tcmma_gemm")

    def __repr__(self):
        f = self.figures
        return "<tcmma.GemmPlan %s %s grid %s threads %d shared %d>" % (
            self.name, f.arm.label, self.grid, f.threads, f.shared_bytes)


def gemm_plan(m: int, n: int, k: int, d="f32", a="bf16", b="bf16", *, cc: int = 0,
              fp16="wide", tf32: bool = False, prefer="ptx", saturate: bool = False,
              arm: typing.Optional[str] = None, block_m: int = 0, block_n: int = 0,
              block_k: int = 0, warps_m: int = 0, warps_n: int = 0, stages: int = 0,
              unpredicated: bool = False, registers: int = 0,
              name: typing.Optional[str] = None, shape_args: bool = False,
              a_align: int = 0, b_align: int = 0, d_align: int = 0, batch: int = 0,
              pointer_array: bool = False, stride_a: int = 0, stride_b: int = 0,
              stride_d: int = 0, split_k: int = 0,
              epilogue: typing.Sequence[str] = (),
              hook: typing.Optional[str] = None, kernel: str = "auto") -> GemmPlan:
    """Plans a GEMM (d, a, b: precisions or OperandDesc with transposed/ld; zero
    tile fields take the defaults; shape_args .. split_k and epilogue:
    tcmma_gemm_opts, docs/emit.md, GEMM). epilogue: ops applied in order after
    alpha and beta, each "NAME[:ARG[:ARG]]" as tcmma gemm --epilogue spells them
    ("bias:col", "clamp:-1:6", "cvt:e4m3"); hook: the body of the "hook" op.
    The kernel then takes the ops' pointers last (docs/emit.md, GEMM
    epilogues). kernel: "auto" (the tcgen05 kernel on cc 100/103, the wgmma
    kernel on cc 90, where it serves the call), "mma-sync", "wgmma" or
    "tcgen05" (tables/gemm_kernels.def); .info.kernel says which was planned
    (.info.arch_suffix the target it compiles for: sm_<cc><suffix>), and a
    wgmma or tcgen05 kernel takes the tensor maps of a and b last
    (tcmma_gemm_tensor_maps; docs/emit.md, The Hopper GEMM, The Blackwell
    GEMM). Raises
    Declined(reason: GemmDecline)."""
    keep = Keep()
    c = new_struct("tcmma_gemm_call")
    c.m, c.n, c.k = int_arg(m, "m"), int_arg(n, "n"), int_arg(k, "k")
    fill_operand(c.d, d, "d", keep)
    fill_operand(c.a, a, "a", keep)
    fill_operand(c.b, b, "b", keep)
    c.cc = int_arg(cc, "cc")
    c.numerics = _numerics(fp16, tf32, prefer, saturate)
    c.arm = keep.cstr(str_arg(arm, "arm", optional=True))
    for f, v in (("block_m", block_m), ("block_n", block_n), ("block_k", block_k),
                 ("warps_m", warps_m), ("warps_n", warps_n), ("stages", stages),
                 ("registers", registers)):
        setattr(c, f, int_arg(v, f))
    c.unpredicated = bool(unpredicated)
    c.name = keep.cstr(str_arg(name, "name", optional=True))
    keep.items.append(c)
    o = new_struct("tcmma_gemm_opts")
    o.shape_args, o.pointer_array = bool(shape_args), bool(pointer_array)
    for f, v in (("a_align", a_align), ("b_align", b_align), ("d_align", d_align),
                 ("batch", batch), ("stride_a", stride_a), ("stride_b", stride_b),
                 ("stride_d", stride_d), ("split_k", split_k)):
        setattr(o, f, int_arg(v, f))
    out = new_struct("tcmma_gemm_plan")
    info = new_struct("tcmma_gemm_info")
    err = new_error()
    o.epilogue, o.epilogue_count = _epilogue(epilogue, hook, keep)
    kind = ffi.new("tcmma_gemm_kernel *")
    err = new_error()
    check(lib.tcmma_gemm_kernel_parse(str_arg(kernel, "kernel").encode(), kind, err), err)
    o.kernel = kind[0]
    st = lib.tcmma_gemm_plan_opts(c, o, out, info, err)
    if st == lib.TCMMA_DECLINED:
        raise Declined(Status.DECLINED, ffi.string(out.message).decode(),
                       reason=GemmDecline(out.reason))
    check(st, err)
    return GemmPlan(out, keep, o, info)


def _epilogue(items, hook, keep):
    """The tcmma_epilogue_op array of items (its argument forms from
    tcmma_epilogue_args, as the CLI takes them) and its length."""
    if isinstance(items, str):
        raise TypeError("epilogue must be a sequence of op strings, not one string")
    items = list(items)
    if not items:
        return ffi.NULL, 0
    ops = ffi.new("tcmma_epilogue_op[]", len(items))
    keep.items.append(ops)
    for i, item in enumerate(items):
        name, _, arg = str_arg(item, "epilogue").partition(":")
        kind = ffi.new("tcmma_epilogue_kind *")
        err = new_error()
        check(lib.tcmma_epilogue_parse(name.encode(), kind, err), err)
        lib.tcmma_epilogue_op_init(ffi.addressof(ops, i), ffi.sizeof("tcmma_epilogue_op"))
        o = ops[i]
        o.kind = kind[0]
        form = ffi.string(lib.tcmma_epilogue_args(kind[0])).decode()
        if form in ("", "body") and arg:
            raise ValueError("epilogue %r: %s takes no argument" % (item, name))
        if form == "body":
            o.body = keep.cstr(str_arg(hook, "hook"))
        elif form == "prec":
            o.prec = getattr(lib, "TCMMA_PREC_" + arg.upper(), -1)
            if o.prec < 0 or not arg:
                raise ValueError("epilogue %r: expected cvt:f32|f16|bf16|e4m3|e5m2" % (item,))
        elif form == "lo:hi":
            lo, _, hi = arg.partition(":")
            try:
                o.lo, o.hi = float(lo), float(hi)
            except ValueError:
                raise ValueError("epilogue %r: expected %s:lo:hi" % (item, name)) from None
        elif form:
            axes = form.split("|")
            if arg not in axes:
                raise ValueError("epilogue %r: expected %s:%s" % (item, name, form))
            o.axis = getattr(lib, "TCMMA_EPILOGUE_AXIS_" + arg.upper())
    return ops, len(items)


def render_gemm(plan: GemmPlan, dialect="cuda") -> str:
    """The whole kernel NAME(d, a, b, c, alpha, beta, ...the options' arguments)
    (HOST: plus NAME_entry)."""
    if not isinstance(plan, GemmPlan):
        raise TypeError("plan must be a tcmma.GemmPlan (from tcmma.gemm_plan), not %r" % (plan,))
    # the GEMM plan is the renderer's own argument; the context carries no tile plan
    return _run(lib.tcmma_render_gemm_opts, None, _dialect(dialect), _NO_NAMES, plan._p,
                plan._opts)


def gemm(*args, dialect="cuda", **kw) -> typing.Tuple[GemmPlan, str]:
    """gemm_plan(...) and its rendering."""
    p = gemm_plan(*args, **kw)
    return p, render_gemm(p, dialect)
