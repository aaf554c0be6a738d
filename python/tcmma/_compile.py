"""Architecture options, NVRTC compiles (single and batched) and target scopes."""
import contextlib
import dataclasses
import typing

from ._core import (Keep, Status, Target, call, check, dataclass_of, enum_arg, ffi, int_arg,
                    lib, new_error, new_struct, str_arg, to_dataclass, _s)
from .errors import CompileError

ArchOptions = dataclass_of("tcmma_arch_options", "ArchOptions")
NvrtcInfo = dataclass_of("tcmma_nvrtc_info", "NvrtcInfo")


def _text(source):
    if isinstance(source, str):
        return source.encode()
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    raise TypeError("source must be str or bytes, not %s" % type(source).__name__)


def _target(t):
    return enum_arg(Target, t, "target", lib.tcmma_target_parse, "tcmma_target") \
        if not (isinstance(t, str) and t == "current") else int(Target.CURRENT)


def options(source, cc: int = 0, native: bool = False) -> ArchOptions:
    """The --gpu-architecture source needs from its markers, at the floor or
    (native) for the device cc (0 with native: the lowest attached device)."""
    src = _text(source)
    out = ffi.new("tcmma_arch_options *")
    call(lib.tcmma_gpu_arch_options, src, len(src), int_arg(cc, "cc"),
         int(Target.NATIVE if native else Target.FLOOR), out)
    hits = [to_dataclass(out.markers[i]) for i in range(out.n_markers)]
    base = to_dataclass(out)
    return dataclasses.replace(base, markers=hits)


def nvrtc() -> NvrtcInfo:
    """Facts of the NVRTC tcmma loads (version, library, include dirs)."""
    out = ffi.new("tcmma_nvrtc_info *")
    call(lib.tcmma_nvrtc_facts, out)
    return to_dataclass(out)


@dataclasses.dataclass(frozen=True)
class Program:
    """A compiled program: PTX (bytes, NUL-free), CUBIN (bytes or None), the log,
    the options passed, .target ("sm_80"), cache facts and ptxas figures."""
    name: str
    options: typing.List[str]
    ptx: typing.Optional[bytes]
    cubin: typing.Optional[bytes]
    log: str
    target: str
    nvrtc_version: typing.Tuple[int, int]
    cache_hit: bool
    cache_note: typing.Optional[str]
    ptxas_info: bool
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    stack_bytes: int
    shared_bytes: int

    @property
    def census(self) -> typing.Dict[str, int]:
        """The PTX's instruction census (opcode -> count)."""
        from . import ptx
        return ptx.read(self.ptx).census

    def ptx_info(self):
        from . import ptx
        return ptx.read(self.ptx)


def _program(p) -> Program:
    return Program(
        name=_s(p.name) or "", options=[_s(p.options[i]) for i in range(p.n_options)],
        ptx=ffi.buffer(p.ptx, p.ptx_len)[:] if p.ptx != ffi.NULL else None,
        cubin=ffi.buffer(p.cubin, p.cubin_len)[:] if p.cubin != ffi.NULL else None,
        log=_s(p.log) or "", target=ffi.string(p.target_arch).decode(),
        nvrtc_version=(p.nvrtc_major, p.nvrtc_minor), cache_hit=bool(p.cache_hit),
        cache_note=_s(p.cache_note), ptxas_info=bool(p.ptxas_info), registers=p.registers,
        spill_store_bytes=p.spill_store_bytes, spill_load_bytes=p.spill_load_bytes,
        stack_bytes=p.stack_bytes, shared_bytes=p.shared_bytes)


def _strings(keep, values, what):
    if isinstance(values, str):
        raise TypeError("%s must be a sequence of str, not a str" % what)
    values = [str_arg(v, what) for v in values]
    arr = ffi.new("const char *[]", max(len(values), 1))
    for i, v in enumerate(values):
        arr[i] = keep.cstr(v)
    keep.items.append(arr)
    return arr, len(values)


def _opts(keep, name=None, target="current", cc=0, sass=False, fmad=True, debug=False,
          arch=0, arch_suffix=None, extra=(), include_dirs=(), defines=(), std=None,
          minimal=False):
    o = new_struct("tcmma_compile_opts")
    o.name = keep.cstr(str_arg(name, "name", optional=True))
    o.target = _target(target)
    o.cc = int_arg(cc, "cc")
    o.sass, o.fmad_false, o.debug, o.minimal = bool(sass), not fmad, bool(debug), bool(minimal)
    o.arch = int_arg(arch, "arch")
    if arch_suffix not in (None, "", "a", "f"):
        from .errors import InvalidError
        raise InvalidError(Status.INVALID, "arch_suffix %r (expected None, 'a' or 'f')"
                           % (arch_suffix,))
    o.arch_suffix = (arch_suffix or "\0").encode()
    o.extra, o.n_extra = _strings(keep, extra, "extra")
    o.include_dirs, o.n_include_dirs = _strings(keep, include_dirs, "include_dirs")
    o.defines, o.n_defines = _strings(keep, defines, "defines")
    o.std = keep.cstr(str_arg(std, "std", optional=True))
    keep.items.append(o)
    return o


def _raise(st, err, programs):
    name = Status(st).name
    if name == "COMPILE":
        raise CompileError(Status(st), ffi.string(err.message).decode(),
                           program=programs[0] if len(programs) == 1 else programs)
    check(st, err)


def compile(source, *, name: typing.Optional[str] = None, target="current", cc: int = 0,
            sass: bool = False, fmad: bool = True, debug: bool = False, arch: int = 0,
            arch_suffix: typing.Optional[str] = None, extra: typing.Sequence[str] = (),
            include_dirs: typing.Sequence[str] = (), defines: typing.Sequence[str] = (),
            std: typing.Optional[str] = None, minimal: bool = False) -> Program:
    """Compiles CUDA source with NVRTC through the cache at the target ("current",
    "floor", "native"); sass: a CUBIN with ptxas figures. Raises CompileError
    (with .log), TcmmaError (FLOOR, UNAVAILABLE, ...)."""
    src = _text(source)
    keep = Keep()
    opts = _opts(keep, name, target, cc, sass, fmad, debug, arch, arch_suffix, extra,
                 include_dirs, defines, std, minimal)
    out = ffi.new("tcmma_program *")
    err = new_error()
    try:
        st = lib.tcmma_compile(src, len(src), opts, out, err)
        prog = _program(out)
    finally:
        lib.tcmma_program_free(out)
    if st != lib.TCMMA_OK:
        _raise(st, err, [prog])
    return prog


def compile_batch(source, kernels: typing.Sequence[str], **opts) -> typing.List[Program]:
    """Compiles source defining every kernel named as ONE NVRTC program and splits
    the result per kernel (each Program's PTX and ptxas figures are its own)."""
    src = _text(source)
    keep = Keep()
    names, n = _strings(keep, kernels, "kernels")
    o = _opts(keep, **opts)
    out = ffi.new("tcmma_program[]", max(n, 1))
    err = new_error()
    try:
        st = lib.tcmma_compile_batch(src, len(src), names, n, o, out, err)
        progs = [_program(out[i]) for i in range(n)]
    finally:
        for i in range(n):
            lib.tcmma_program_free(out + i)
    if st != lib.TCMMA_OK:
        _raise(st, err, progs)
    return progs


Record = dataclass_of("tcmma_record", "Record")


@contextlib.contextmanager
def target(t="floor"):
    """A target scope ("floor" or "native"): compiles inside it use the target;
    the list it yields gets a Record per program really compiled (not served
    from the cache) when the scope ends."""
    scope = ffi.new("tcmma_target_scope **")
    call(lib.tcmma_target_scope_begin, _target(t), scope)
    records = []
    try:
        yield records
    finally:
        recs = ffi.new("tcmma_records *")
        lib.tcmma_target_scope_end(scope[0], recs)
        try:
            records.extend(to_dataclass(recs.items[i]) for i in range(recs.count))
        finally:
            lib.tcmma_records_free(recs)


def current_target() -> Target:
    out = ffi.new("tcmma_target *")
    call(lib.tcmma_target_current, out)
    return Target(out[0])
