"""Builds the tcmma wheel: libtcmma.so, libtcmma_sim.so and the tcmma CLI from
the repository's Makefile (into the build directory; TCMMA_PREBUILT=DIR copies
them from a build instead; TCMMA_REPO=DIR names the repository), the cffi
declarations generated from the public headers (tcmma/_cdef.py), and the
headers the simulator's host modules include.
"""
import glob
import importlib.util
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # setuptools >= 70 ships its own
    from setuptools.command.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository: one directory up, or $TCMMA_REPO for a copy of python/
# built elsewhere (the wheel test builds one in a scratch directory).
ROOT = os.environ.get("TCMMA_REPO") or os.path.dirname(HERE)
OUTPUTS = ("libtcmma.so", "libtcmma_sim.so", "tcmma")


def _cdefgen():
    spec = importlib.util.spec_from_file_location(
        "tcmma_cdefgen", os.path.join(HERE, "tcmma", "_cdefgen.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        if not os.path.isfile(os.path.join(ROOT, "Makefile")):
            sys.exit("tcmma: build from the repository (pip install ./python): the C "
                     "sources are one directory up")
        pkg = os.path.join(self.build_lib, "tcmma")
        built = os.environ.get("TCMMA_PREBUILT")
        if not built:
            built = os.path.abspath(os.path.join(self.build_lib, "..", "tcmma-c"))
            jobs = os.environ.get("TCMMA_JOBS", str(os.cpu_count() or 1))
            cmd = ["make", "-C", ROOT, "-j" + jobs, "BUILD=" + built] + \
                  [os.path.join(built, o) for o in OUTPUTS]
            print(" ".join(cmd))
            subprocess.check_call(cmd)
        for sub, names in (("lib", OUTPUTS[:2]), ("bin", OUTPUTS[2:])):
            os.makedirs(os.path.join(pkg, sub), exist_ok=True)
            for n in names:
                shutil.copy2(os.path.join(built, n), os.path.join(pkg, sub, n))
        inc = os.path.join(pkg, "include")
        for pattern, sub in (("include/tcmma/*.h", "tcmma"), ("tables/*.def", "tables")):
            os.makedirs(os.path.join(inc, sub), exist_ok=True)
            for f in glob.glob(os.path.join(ROOT, pattern)):
                shutil.copy2(f, os.path.join(inc, sub))
        _cdefgen().write_module(os.path.join(pkg, "_cdef.py"), os.path.join(ROOT, "include"),
                                ROOT)


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(
    name="tcmma",
    version=_cdefgen().version_of(os.path.join(ROOT, "include")),
    description="Tensor-core tile-MMA emission for CUDA code generators (libtcmma binding)",
    packages=["tcmma"],
    python_requires=">=3.9",
    install_requires=["cffi>=1.15"],
    cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel},
    zip_safe=False,
)
