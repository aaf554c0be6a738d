"""The wheel: built (from this build's libraries, or from source with
TCMMA_WHEEL_FROM_SOURCE=1, which runs the Makefile), installed into a fresh
virtual environment, and used there with nothing of the source tree."""
import glob
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.environ.get("TCMMA_SRCDIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TCMMA_BUILD") or os.path.join(ROOT, "build")

USE = r"""
import os, sys, numpy as np, tcmma
here = os.path.dirname(tcmma.__file__)
assert tcmma.library_path == os.path.join(here, "lib", "libtcmma.so"), tcmma.library_path
from tcmma import _cdef  # generated at build time
assert _cdef.VERSION == tcmma.__version__
g = tcmma.gemm_plan(64, 32, 32, "f32", "f16", "f16", block_m=64, block_n=32, block_k=32,
                    warps_m=2, warps_n=1)
mod = tcmma.sim.HostModule(tcmma.render_gemm(g, dialect="host"))
a = np.ones((64, 32), np.float16); b = np.ones((32, 32), np.float16)
c = np.zeros((64, 32), np.float32); d = np.zeros((64, 32), np.float32)
tcmma.sim.launch(mod, "tcmma_gemm_entry", [d, a, b, c, 1.0, 0.0], grid=g.grid,
                 block=(g.threads, 1, 1), shared=g.shared_bytes)
assert (d == 32).all()
print("ok", sys.prefix)
"""


def _clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TCMMA_") and k not in ("PYTHONPATH",)}
    env.update(extra or {})
    return env


def _run(cmd, env, cwd):
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, env=env, cwd=cwd)
    assert res.returncode == 0, "%s:\n%s" % (" ".join(cmd), res.stdout[-4000:])
    return res.stdout


def test_wheel_installs_into_a_fresh_venv(tmp_path):
    pytest.importorskip("wheel")
    pytest.importorskip("ensurepip", reason="python3 -m venv needs ensurepip (python3-venv)")
    env = _clean_env()
    if not os.environ.get("TCMMA_WHEEL_FROM_SOURCE"):
        for f in ("libtcmma.so", "libtcmma_sim.so", "tcmma"):
            if not os.path.isfile(os.path.join(BUILD, f)):
                pytest.skip("no %s in %s (make all)" % (f, BUILD))
        env["TCMMA_PREBUILT"] = BUILD
    # a copy of python/: pip builds in the tree, and the source tree's stays clean
    pkg = tmp_path / "python"
    shutil.copytree(os.path.join(ROOT, "python"), str(pkg),
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__",
                                                  "_cdef.py", "lib", "bin", "include"))
    env["TCMMA_REPO"] = ROOT
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "-w", str(dist), str(pkg)], env, str(tmp_path))
    wheels = glob.glob(str(dist / "tcmma-*.whl"))
    assert len(wheels) == 1 and "-py3-none-linux_" in os.path.basename(wheels[0]), wheels
    venv = tmp_path / "venv"
    # system site packages: cffi and numpy come from there, tcmma only from the wheel
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], env, str(tmp_path))
    py = str(venv / "bin" / "python")
    _run([py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheels[0]], env,
         str(tmp_path))
    out = _run([py, "-c", USE], _clean_env(), str(tmp_path))
    assert out.startswith("ok " + str(venv))
    out = _run([py, "-m", "tcmma", "--version"], _clean_env({"PATH": "/usr/bin:/bin"}),
               str(tmp_path))
    assert out.startswith("tcmma ")
