"""The host warp simulator from Python: host-dialect text (render_kernel,
render_gemm with dialect="host") compiled with $CC into a shared object and
run on the CPU, lanes as threads (docs/sim.md).

libtcmma_sim.so (built beside libtcmma.so, bundled in the wheel) holds the
simulator; it is loaded with RTLD_GLOBAL before any module, so the modules'
calls to tcmma_sim_* resolve to it.
"""
import ctypes
import os
import shlex
import subprocess
import tempfile
import typing

from ._core import Status, call, ffi, int_arg, new_struct
from ._ffi import include_dirs, sim_lib
from .errors import InvalidError, UnavailableError


class HostModule:
    """A compiled host-dialect source, loaded; entry(name) is a function
    `void name(void *args)` as the simulator launches it."""

    def __init__(self, source: str, cflags: typing.Sequence[str] = ()):
        if not isinstance(source, str):
            raise TypeError("source must be host-dialect C text (str)")
        sim_lib()  # first: the module's tcmma_sim_* resolve against it
        cc = shlex.split(os.environ.get("CC", "cc"))
        flags = ["-std=c11", "-O1", "-fno-strict-aliasing", "-fPIC", "-shared"]
        flags += ["-I" + d for d in include_dirs()]
        flags += shlex.split(os.environ.get("TCMMA_SIM_CFLAGS", ""))
        with tempfile.TemporaryDirectory(prefix="tcmma-sim-") as tmp:
            src, so = os.path.join(tmp, "module.c"), os.path.join(tmp, "module.so")
            with open(src, "w") as f:
                f.write(source)
            try:
                res = subprocess.run(cc + flags + list(cflags) + ["-o", so, src],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     universal_newlines=True)
            except FileNotFoundError:
                raise UnavailableError(Status.UNAVAILABLE,
                                       "no C compiler %r for host modules (set CC)" % cc[0])
            if res.returncode != 0:
                raise InvalidError(Status.INVALID, "the host module does not compile: %s"
                                   % res.stdout.strip()[:2000])
            self._dll = ctypes.CDLL(so, mode=os.RTLD_NOW | os.RTLD_LOCAL)

    def entry(self, name: str):
        try:
            fn = getattr(self._dll, name)
        except AttributeError:
            raise InvalidError(Status.INVALID, "the host module has no function %r" % name)
        return ffi.cast("void (*)(void *)", ctypes.cast(fn, ctypes.c_void_p).value)


def _arg(v, keep, i):
    """A pointer for args[i]: a buffer's data (numpy array, anything with the
    buffer protocol) or a pointer to a scalar (numpy scalar; float: f32)."""
    if hasattr(v, "__array_interface__") and getattr(v, "shape", None) != ():
        ai = v.__array_interface__
        if ai.get("strides") is not None and not v.flags["C_CONTIGUOUS"]:
            raise InvalidError(Status.INVALID, "args[%d] is not C-contiguous" % i)
        return ffi.cast("void *", ai["data"][0])
    if hasattr(v, "dtype"):  # numpy scalar
        p = ffi.new({"float32": "float", "float64": "double", "int32": "int32_t"}
                    .get(str(v.dtype), "float") + " *", v.item())
    elif isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("args[%d] %r must be an array or a number" % (i, v))
    elif isinstance(v, float):
        p = ffi.new("float *", v)
    else:
        p = ffi.new("int32_t *", v)
    keep.append(p)
    return p


def launch(module: HostModule, entry: str, args, grid=(1, 1, 1), block=(32, 1, 1),
           shared: int = 0) -> None:
    """Runs module's entry(args) on the simulator over grid x block threads with
    shared bytes of dynamic shared memory. args: arrays (their data pointers)
    and scalars (pointers to them), as the entry's void *args[] takes them.
    InvalidError naming the lanes and the collective when the run fails."""
    if not isinstance(module, HostModule):
        raise TypeError("module must be a tcmma.sim.HostModule, not %r" % (module,))
    fn = module.entry(entry)
    keep = []
    arr = ffi.new("void *[]", max(len(args), 1))
    for i, v in enumerate(args):
        arr[i] = _arg(v, keep, i)
    sim = sim_lib()
    cfg = new_struct("tcmma_sim_config", sim)
    for name, v in (("grid", grid), ("block", block)):
        v = tuple(v)
        if len(v) != 3:
            raise InvalidError(Status.INVALID, "%s %r must have 3 dimensions" % (name, v))
        setattr(cfg, name, [int_arg(x, name, 1) for x in v])
    cfg.dynamic_shared = int_arg(shared, "shared", 0)
    call(sim.tcmma_sim_launch_grid, fn, arr, cfg)
