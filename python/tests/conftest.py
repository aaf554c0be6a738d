"""Shared helpers of the Python package's tests: a subprocess that imports
tcmma with a changed environment (the driver and the cache read theirs once
per process)."""
import json
import os
import subprocess
import sys

import pytest

# The repository these tests belong to (make check sets it; pytest alone too).
os.environ.setdefault("TCMMA_SRCDIR", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

try:  # run from anywhere in a source tree: the package beside these tests
    import tcmma  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(code, env=None, cwd=None):
    """Runs code in a fresh interpreter; returns (rc, stdout, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    res = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, env=e, cwd=cwd)
    return res.returncode, res.stdout, res.stderr


@pytest.fixture
def python():
    return run_python


def have_nvrtc():
    import tcmma
    try:
        tcmma.nvrtc()
        return True
    except tcmma.UnavailableError:
        return False


needs_nvrtc = pytest.mark.skipif("not __import__('conftest').have_nvrtc()",
                                 reason="no NVRTC on this machine")
