"""The renderers: an accepted plan as CUDA C (or host-dialect) text.

The C signatures are in flux (a render-context struct, tcmma_render_ctx,
replaces the positional plan, dialect, names, out): every renderer goes
through _run, which reads each C function's declared first parameter and
calls it in whichever form the headers declare. What a renderer passes
besides plan, dialect and names is its own line below: one place each.
"""
import typing

from ._core import (Dialect, Keep, Operand, Swizzle, Status, check, enum_arg, ffi, int_arg,
                    lib, new_error, new_struct, str_arg)
from ._plan import Plan


class Names:
    """A naming context (tcmma_names): blocks rendered with one Names never share
    a local name; blocks of two contexts need different prefixes."""

    def __init__(self, prefix: typing.Optional[str] = None):
        self._keep = Keep()
        self._c = new_struct("tcmma_names")
        self._c.prefix = self._keep.cstr(str_arg(prefix, "prefix", optional=True))

    @property
    def next(self) -> int:
        return self._c.next


def _dialect(d):
    return enum_arg(Dialect, d, "dialect")


def _plan_arg(plan):
    if not isinstance(plan, Plan):
        raise TypeError("plan must be a tcmma.Plan (from tcmma.plan), not %r" % (plan,))
    return plan._p


def _names_arg(names):
    if names is None:
        return Names()._c
    if not isinstance(names, Names):
        raise TypeError("names must be a tcmma.Names, not %r" % (names,))
    return names._c


_NO_NAMES = object()  # the renderer takes no naming context


def _run(fn, plan, dialect, names, *rest):
    """The one C-facing call of every renderer: fn's text for plan (cdata or
    None), dialect, names (cdata, or _NO_NAMES) and the renderer's own
    arguments; raises on failure. Dispatches on fn's declared first parameter:
    a `tcmma_render_ctx *` gets a context (from the library's default, with
    plan, dialect, names and out set) and then rest and the error; otherwise
    the positional form (plan, dialect, [names,] rest..., out, err)."""
    buf = ffi.new("tcmma_buf *")
    err = new_error()
    rest = [a.encode() if isinstance(a, str) else a for a in rest]
    params = ffi.typeof(fn).args
    try:
        if params and params[0].kind == "pointer" and params[0].item.cname == "tcmma_render_ctx":
            ctx = new_struct("tcmma_render_ctx")
            fields = dict(ffi.typeof("tcmma_render_ctx").fields)
            if plan is not None:
                ctx.plan = plan
            ctx.dialect = dialect
            if names is not _NO_NAMES and "names" in fields:
                ctx.names = names
            ctx.out = buf
            st = fn(ctx, *rest, err)
        else:
            head = [] if plan is None else [plan]
            head.append(dialect)
            if names is not _NO_NAMES:
                head.append(names)
            st = fn(*head, *rest, buf, err)
        check(st, err)
        return ffi.string(lib.tcmma_buf_str(buf)).decode()
    finally:
        lib.tcmma_buf_free(buf)


def _expr(v, what):
    return str_arg(v, what)


def render_statement(plan: Plan, d: str, a: str, b: str, dialect="cuda",
                     names: typing.Optional[Names] = None) -> str:
    """One self-contained brace block: D (pointer expression d) += A B."""
    return _run(lib.tcmma_render_statement, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(d, "d"), _expr(a, "a"), _expr(b, "b"))


def render_fragment_open(plan: Plan, frag: str, d: str, dialect="cuda",
                         names: typing.Optional[Names] = None) -> str:
    """Declares accumulator frag and starts it as the plan's init says."""
    return _run(lib.tcmma_render_fragment_open, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(frag, "frag"), _expr(d, "d"))


def render_fragment_update(plan: Plan, frag: str, a: str, b: str, dialect="cuda",
                           names: typing.Optional[Names] = None) -> str:
    """frag += A B (inside the caller's reduction loop)."""
    return _run(lib.tcmma_render_fragment_update, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(frag, "frag"), _expr(a, "a"), _expr(b, "b"))


def render_fragment_close(plan: Plan, frag: str, d: str, dialect="cuda",
                          names: typing.Optional[Names] = None) -> str:
    """Stores frag to d."""
    return _run(lib.tcmma_render_fragment_close, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(frag, "frag"), _expr(d, "d"))


def _operand(op):
    return enum_arg(Operand, op, "operand", lib.tcmma_operand_parse, "tcmma_operand")


def render_frag_decl(plan: Plan, op, name: str, buffers: int = 0, dialect="cuda") -> str:
    """Declares fragment array name of operand op ("a", "b", "c")."""
    return _run(lib.tcmma_render_frag_decl, _plan_arg(plan), _dialect(dialect), _NO_NAMES,
                _operand(op), _expr(name, "name"), int_arg(buffers, "buffers"))


def render_frag_load(plan: Plan, op, frag: str, base: str, kstep: str = "0", dialect="cuda",
                     names: typing.Optional[Names] = None) -> str:
    """Loads frag (op a or b) with the tiles of k step kstep from base."""
    return _run(lib.tcmma_render_frag_load, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _operand(op), _expr(frag, "frag"), _expr(base, "base"),
                _expr(kstep, "kstep"))


def render_frag_mma(plan: Plan, acc: str, a: str, b: str, dialect="cuda",
                    names: typing.Optional[Names] = None) -> str:
    """acc += a x b over one k step's tiles."""
    return _run(lib.tcmma_render_frag_mma, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(acc, "acc"), _expr(a, "a"), _expr(b, "b"))


def render_acc_init(plan: Plan, acc: str, d: str, dialect="cuda",
                    names: typing.Optional[Names] = None) -> str:
    """Starts accumulator acc as the plan's init says."""
    return _run(lib.tcmma_render_acc_init, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(acc, "acc"), _expr(d, "d"))


def render_acc_store(plan: Plan, acc: str, d: str, dialect="cuda",
                     names: typing.Optional[Names] = None) -> str:
    """Stores acc to d."""
    return _run(lib.tcmma_render_acc_store, _plan_arg(plan), _dialect(dialect),
                _names_arg(names), _expr(acc, "acc"), _expr(d, "d"))


def _plans(plans):
    if isinstance(plans, Plan):
        plans = [plans]
    arr = ffi.new("tcmma_plan[]", max(len(plans), 1))
    for i, p in enumerate(plans):
        arr[i] = _plan_arg(p)[0]
    return arr, len(plans)


def render_prologue(plans, dialect="cuda") -> str:
    """Kernel-scope declarations the plans of one kernel share."""
    arr, n = _plans(plans)
    return _run(lib.tcmma_kernel_prologue, None, _dialect(dialect), _NO_NAMES, arr, n)


def kernel_shared_bytes(plans) -> int:
    """Shared-memory bytes of render_prologue's declarations."""
    arr, n = _plans(plans)
    return lib.tcmma_kernel_shared_bytes(arr, n)


def render_includes(plan: Plan, dialect="cuda", vendor_headers: bool = False) -> str:
    """What a source needs before the plan's blocks (headers or declarations)."""
    return _run(lib.tcmma_render_includes, _plan_arg(plan), _dialect(dialect), _NO_NAMES,
                bool(vendor_headers))


def render_kernel(plan: Plan, dialect="cuda", outer: int = 1, pieces: bool = False,
                  indexed_bases: bool = False) -> str:
    """A complete one-warp kernel tcmma_kernel(d, a, b) (HOST: plus
    tcmma_kernel_entry(void *args))."""
    opts = new_struct("tcmma_kernel_opts")
    opts.outer = int_arg(outer, "outer")
    opts.pieces, opts.indexed_bases = bool(pieces), bool(indexed_bases)
    return _run(lib.tcmma_render_kernel, _plan_arg(plan), _dialect(dialect), _NO_NAMES, opts)


def render_stage(dst: str, src: str, rows: int, cols: int, elem_bytes: int,
                 dst_ld: int = 0, src_ld: int = 0, swizzle="none", async_copy: bool = True,
                 lane: typing.Optional[str] = None, dialect="cuda",
                 names: typing.Optional[Names] = None) -> str:
    """A warp's copy of a rows x cols tile from global src to shared dst (cp.async
    where it can); dst_ld / src_ld 0: cols."""
    rows, cols = int_arg(rows, "rows", bits=64), int_arg(cols, "cols", bits=64)
    keep = Keep()
    opts = new_struct("tcmma_stage_opts")
    setattr(opts, "async", bool(async_copy))
    opts.dst, opts.src = keep.cstr(_expr(dst, "dst")), keep.cstr(_expr(src, "src"))
    opts.rows, opts.cols = rows, cols
    opts.dst_ld = int_arg(dst_ld, "dst_ld", bits=64) or cols
    opts.src_ld = int_arg(src_ld, "src_ld", bits=64) or cols
    opts.elem_bytes = int_arg(elem_bytes, "elem_bytes")
    opts.swizzle = enum_arg(Swizzle, swizzle, "swizzle", lib.tcmma_swizzle_parse, "tcmma_swizzle")
    opts.lane = keep.cstr(str_arg(lane, "lane", optional=True))
    return _run(lib.tcmma_render_stage, None, _dialect(dialect), _names_arg(names), opts)
