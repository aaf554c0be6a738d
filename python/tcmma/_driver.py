"""Devices and kernel launches through the project's driver wrapper
(include/tcmma/driver.h): libcuda is loaded on first use; without it every
call raises UnavailableError naming the cause."""
import ctypes
import dataclasses
import numbers
import typing

from ._core import Status, call, dataclass_of, ffi, int_arg, lib, str_arg, to_dataclass
from ._compile import Program
from .errors import InvalidError

DeviceInfo = dataclass_of("tcmma_device_info", "DeviceInfo")


def devices() -> typing.List[DeviceInfo]:
    """Every attached CUDA device (ordinal, name, cc). UnavailableError without a
    driver."""
    count = ffi.new("int *")
    call(lib.tcmma_device_count, count)
    out = []
    for i in range(count[0]):
        d = ffi.new("tcmma_device_info *")
        call(lib.tcmma_device_get, i, d)
        out.append(to_dataclass(d))
    return out


@dataclasses.dataclass(frozen=True)
class Pointer:
    """A raw device pointer (CUdeviceptr) passed as a kernel argument."""
    address: int


# DLPack (dlpack.h v0.x): the DLTensor at the head of a DLManagedTensor.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", ctypes.c_uint8 * 4), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged
_capsule_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_ptr.restype = ctypes.c_void_p
_capsule_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]


def device_pointer(obj, what="argument") -> int:
    """The device address of a DLPack producer (torch, CuPy: __dlpack__), a
    __cuda_array_interface__ holder, or a Pointer; ValueError for host memory."""
    if isinstance(obj, Pointer):
        return int_arg(obj.address, what + " address", 0, (1 << 64) - 1)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    if hasattr(obj, "__dlpack__"):
        dev = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else None
        if dev is not None and int(dev[0]) not in _DL_CUDA:
            raise ValueError("%s %s is not in CUDA device memory (DLPack device type %d)"
                             % (what, type(obj).__name__, int(dev[0])))
        cap = obj.__dlpack__()
        t = _DLTensor.from_address(_capsule_ptr(cap, b"dltensor"))
        if t.device.device_type not in _DL_CUDA:
            raise ValueError("%s %s is not in CUDA device memory (DLPack device type %d)"
                             % (what, type(obj).__name__, t.device.device_type))
        return (t.data or 0) + t.byte_offset
    raise TypeError("%s %r is neither a DLPack producer, a __cuda_array_interface__ holder, "
                    "a tcmma.Pointer nor a scalar" % (what, obj))


def _scalar(v, keep, what):
    """A kernel scalar parameter: numpy scalars keep their type; float: f32;
    int: int32; bool: not allowed (ambiguous)."""
    dtype = getattr(v, "dtype", None)
    if dtype is not None and getattr(v, "shape", None) == ():
        ctype = {"float32": "float", "float64": "double", "int32": "int32_t",
                 "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t"}.get(str(dtype))
        if ctype is None:
            raise TypeError("%s: scalar dtype %s is not a kernel parameter type" % (what, dtype))
        p = ffi.new(ctype + " *", v.item())
    elif isinstance(v, bool):
        raise TypeError("%s: bool %r is ambiguous as a kernel parameter; pass numpy.int32"
                        % (what, v))
    elif isinstance(v, numbers.Integral):
        if not -2**31 <= v < 2**31:
            raise InvalidError(Status.INVALID, "%s: int %d does not fit int32; pass a "
                               "numpy.int64 or a tcmma.Pointer" % (what, v))
        p = ffi.new("int32_t *", int(v))
    elif isinstance(v, numbers.Real):
        p = ffi.new("float *", float(v))
    else:
        return None
    keep.append(p)
    return p


def _dims(v, what):
    if isinstance(v, int):
        v = (v,)
    v = tuple(v)
    if not 1 <= len(v) <= 3:
        raise InvalidError(Status.INVALID, "%s %r must have 1 to 3 dimensions" % (what, v))
    for x in v:
        int_arg(x, what, 1, 2**31 - 1)
    return ffi.new("unsigned[3]", list(v) + [1] * (3 - len(v)))


def _params(args):
    keep, params = [], ffi.new("void *[]", max(len(args), 1))
    for i, a in enumerate(args):
        what = "argument %d" % i
        p = _scalar(a, keep, what)
        if p is None:
            p = ffi.new("unsigned long long *", device_pointer(a, what))
            keep.append(p)
        params[i] = p
    return params, keep


class Module:
    """A loaded module (PTX or CUBIN) on one device."""

    def __init__(self, image: bytes, device: int = 0):
        m = ffi.new("tcmma_module **")
        call(lib.tcmma_module_load, int_arg(device, "device", 0), image, len(image), m)
        self._m = ffi.gc(m[0], lib.tcmma_module_unload)
        self.device = device

    def kernel(self, name: str) -> "Kernel":
        k = ffi.new("tcmma_kernel *")
        call(lib.tcmma_module_kernel, self._m, str_arg(name, "kernel").encode(), k)
        return Kernel(k, self)


class Kernel:
    """A kernel of a loaded Module (which it keeps loaded)."""

    def __init__(self, cdata, module):
        self._k, self.module = cdata, module


def launch(program, kernel: str, grid, block, args, shared: int = 0, device: int = 0,
           repeats: typing.Optional[int] = None) -> typing.Optional[float]:
    """Launches kernel of program (a Program, PTX/CUBIN bytes or a Module) on grid x
    block threads with shared bytes of dynamic shared memory and args (DLPack
    producers / Pointer for pointers, numpy scalars, float: f32, int: int32), and
    waits for it. repeats: launch that many times between two events and return
    the milliseconds per launch. UnavailableError without a CUDA driver."""
    if not isinstance(kernel, str):
        raise TypeError("kernel must be the kernel's name (str), not %r" % (kernel,))
    g, b = _dims(grid, "grid"), _dims(block, "block")
    int_arg(shared, "shared", 0, 2**32 - 1)
    if repeats is not None:
        int_arg(repeats, "repeats", 1)
    if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
        raise TypeError("args must be a sequence of kernel arguments, not %r" % (args,))
    params, keep = _params(list(args))
    if isinstance(program, Module):
        mod = program
    else:
        if isinstance(program, Program):
            image = program.cubin or program.ptx
        elif isinstance(program, (bytes, bytearray)):
            image = bytes(program)
        else:
            raise TypeError("program must be a tcmma.Program, PTX/CUBIN bytes or a "
                            "tcmma.Module, not %r" % (program,))
        if not image:
            raise InvalidError(Status.INVALID, "program has neither PTX nor CUBIN")
        mod = Module(image, device)  # the wrapper terminates PTX itself
    k = mod.kernel(kernel)._k
    if shared > 48 * 1024:
        call(lib.tcmma_kernel_max_dynamic_shared, k, shared)
    if repeats is None:
        call(lib.tcmma_launch, k, g, b, shared, params)
        return None
    ms = ffi.new("double *")
    call(lib.tcmma_launch_timed, k, g, b, shared, params, repeats, ms)
    return ms[0]


def driver_version() -> int:
    v = ffi.new("int *")
    call(lib.tcmma_driver_version, v)
    return v[0]
