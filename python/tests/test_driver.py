"""devices and launch: without a CUDA driver (this machine) they raise
UnavailableError naming it; their argument checks come first."""
import os
import shlex
import subprocess

import numpy as np
import pytest

import tcmma

NO_DRIVER = {"TCMMA_LIBCUDA": "/nonexistent/libcuda.so.1"}


def test_devices_without_a_driver(python):
    rc, out, err = python("import tcmma\ntry:\n tcmma.devices()\nexcept tcmma.UnavailableError"
                          " as e:\n print('unavailable', e.status.label, e.message)",
                          env=NO_DRIVER)
    assert rc == 0, err
    assert out.startswith("unavailable unavailable") and "no CUDA driver" in out


def test_launch_without_a_driver(python):
    code = ("import tcmma\ntry:\n tcmma.launch(b'.version 8.0', 'k', (1,), (32,), "
            "[tcmma.Pointer(4096), 1.0, 3])\nexcept tcmma.UnavailableError as e:\n"
            " print('unavailable', e.message)")
    rc, out, err = python(code, env=NO_DRIVER)
    assert rc == 0, err
    assert out.startswith("unavailable") and "no CUDA driver" in out


class FakeCuda:
    """A DLPack-looking producer whose memory is on a CUDA device."""
    __cuda_array_interface__ = {"data": (0x7000, False), "shape": (4,), "typestr": "<f4",
                                "version": 3}


def test_launch_argument_checks():
    ok = [tcmma.Pointer(4096)]
    with pytest.raises(TypeError, match="kernel"):
        tcmma.launch(b"x", 3, (1,), (32,), ok)
    with pytest.raises(tcmma.InvalidError, match="grid"):
        tcmma.launch(b"x", "k", (0, 1), (32,), ok)
    with pytest.raises(tcmma.InvalidError, match="block"):
        tcmma.launch(b"x", "k", (1,), (1, 1, 1, 1), ok)
    with pytest.raises(ValueError, match="not in CUDA device memory"):
        tcmma.launch(b"x", "k", (1,), (32,), [np.zeros(4, np.float32)])
    with pytest.raises(TypeError, match="argument 0"):
        tcmma.launch(b"x", "k", (1,), (32,), ["string"])
    with pytest.raises(TypeError, match="bool"):
        tcmma.launch(b"x", "k", (1,), (32,), [True])
    with pytest.raises(tcmma.InvalidError, match="int32"):
        tcmma.launch(b"x", "k", (1,), (32,), [2**40])
    with pytest.raises(TypeError, match="program"):
        tcmma.launch("ptx text", "k", (1,), (32,), ok)
    with pytest.raises(TypeError, match="args"):
        tcmma.launch(b"x", "k", (1,), (32,), 5)
    with pytest.raises(tcmma.InvalidError, match="repeats"):
        tcmma.launch(b"x", "k", (1,), (32,), ok, repeats=0)
    assert tcmma._driver.device_pointer(FakeCuda()) == 0x7000
    assert tcmma._driver.device_pointer(tcmma.Pointer(12)) == 12


FAKE_RUN = r"""
import ctypes, numpy as np, tcmma
print([(d.ordinal, d.cc) for d in tcmma.devices()])
x = np.arange(4, dtype=np.int32)

class OnDevice:  # a DLPack producer whose memory the fake driver treats as device memory
    def __init__(self, a): self.a = a
    def __dlpack_device__(self): return (2, 0)
    def __dlpack__(self, **kw):
        cap = self.a.__dlpack__()
        t = tcmma._driver._DLTensor.from_address(tcmma._driver._capsule_ptr(cap, b"dltensor"))
        t.device.device_type = 2
        self.cap = cap
        return cap

tcmma.launch(b"add_one", "add_one", (1,), (32,), [tcmma.Pointer(x.ctypes.data), 4])
tcmma.launch(b"add_one", "add_one", 1, 32, [OnDevice(x), np.int32(2)])
ms = tcmma.launch(b"add_one", "add_one", (1, 1, 1), (32, 1, 1),
                  [tcmma.Pointer(x.ctypes.data), 1], repeats=3)
print(x.tolist(), ms >= 0)
try:
    tcmma.launch(b"add_one", "missing", (1,), (32,), [tcmma.Pointer(x.ctypes.data), 4])
except tcmma.TcmmaError as e:
    print(e.status.label, "missing" in e.message)
"""


def test_launch_through_a_fake_driver(python, tmp_path):
    """tests/fake_cuda.c (device memory is host memory; kernel add_one(int *p,
    int n) adds 1 to n ints): the parameters as launch marshals them. 0..3 plus
    one on 4 ints, one on 2 (through DLPack), three on 1 (repeats=3)."""
    root = os.environ.get("TCMMA_SRCDIR")
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if not root or not os.path.isfile(os.path.join(cuda, "include", "cuda.h")):
        pytest.skip("needs the source tree and cuda.h")
    so = str(tmp_path / "libcuda.so.1")
    subprocess.check_call(shlex.split(os.environ.get("CC", "cc")) + [
        "-shared", "-fPIC", "-I" + os.path.join(cuda, "include"),
        os.path.join(root, "tests", "fake_cuda.c"), "-o", so])
    rc, out, err = python(FAKE_RUN, env={"TCMMA_LIBCUDA": so})
    assert rc == 0, err
    assert out.splitlines() == ["[(0, 80), (1, 90)]", "[5, 3, 3, 4] True", "cuda True"]


def test_driver_version_without_a_driver(python):
    rc, out, err = python("import tcmma\ntry:\n tcmma.driver_version()\n"
                          "except tcmma.UnavailableError as e:\n print('unavailable')",
                          env=NO_DRIVER)
    assert rc == 0 and out.strip() == "unavailable", err
