"""devices and launch: without a CUDA driver (this machine) they raise
UnavailableError naming it; their argument checks come first."""
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
