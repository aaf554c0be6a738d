"""Loads libtcmma (and the simulator beside it) through cffi in ABI mode.

The declarations come from the public headers: tcmma/_cdef.py, written at
build time by _cdefgen.py, or, in a source tree without it, generated now
from ../include. The library loaded is $TCMMA_LIBRARY when set, else the
bundled one, else the source tree's build/. At load the package's struct
sizes and enum counts are compared with the facts the library reports
(tcmma_abi_fact, include/tcmma/abi.h): a library built from other headers
fails the import with a message naming each difference.
"""
import os

import cffi

_HERE = os.path.dirname(os.path.abspath(__file__))


class LibraryMismatch(ImportError):
    """The loaded libtcmma was built from headers other than the package's."""


def _source_root():
    root = os.environ.get("TCMMA_SRCDIR") or os.path.dirname(os.path.dirname(_HERE))
    return root if os.path.isfile(os.path.join(root, "include", "tcmma", "tcmma.h")) else None


def _declarations():
    try:
        from . import _cdef  # written by setup.py
        return _cdef.CDEF, _cdef.VERSION, "the package's generated declarations"
    except ImportError:
        pass
    root = _source_root()
    if root is None:
        raise ImportError("tcmma: no generated declarations (tcmma/_cdef.py) and no source "
                          "tree (set TCMMA_SRCDIR to the repository) to generate them from")
    from . import _cdefgen
    cdef, version = _cdefgen.generate(os.path.join(root, "include"), root)
    return cdef, version, "the headers of " + root


def include_dirs():
    """The directories holding tcmma/sim.h and tables/*.def, for host modules:
    the wheel's bundled copy, else the source tree's include/ and root."""
    bundled = os.path.join(_HERE, "include")
    if os.path.isfile(os.path.join(bundled, "tcmma", "sim.h")):
        return [bundled]
    root = _source_root()
    return [os.path.join(root, "include"), root] if root else [bundled]


def _library_path():
    env = os.environ.get("TCMMA_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ImportError("tcmma: TCMMA_LIBRARY=%s is not a file" % env)
        return env
    candidates = [os.path.join(_HERE, "lib", "libtcmma.so")]
    root = _source_root()
    if root:
        build = os.environ.get("TCMMA_BUILD") or os.path.join(root, "build")
        candidates.append(os.path.join(build, "libtcmma.so"))
    for c in candidates:
        if os.path.isfile(c):
            return c
    raise ImportError("tcmma: libtcmma.so not found (looked in %s); build it (make) or set "
                      "TCMMA_LIBRARY" % ", ".join(candidates))


def _check_abi(ffi, lib, path, origin, version):
    problems = []
    have = ffi.string(lib.tcmma_version()).decode()
    if have != version:
        problems.append("version %s, the package's declarations are %s" % (have, version))
    name, value = ffi.new("const char **"), ffi.new("long *")
    i = 0
    while lib.tcmma_abi_fact(i, name, value):
        fact = ffi.string(name[0]).decode()
        try:
            mine = ffi.sizeof(fact) if fact.islower() else getattr(lib, fact)
        except (cffi.FFIError, cffi.CDefError, AttributeError, KeyError):
            problems.append("%s is not declared by the package" % fact)
        else:
            if mine != value[0]:
                what = "sizeof(%s)" % fact if fact.islower() else fact
                problems.append("%s is %d in the library, %d in the package"
                                % (what, value[0], mine))
        i += 1
    if problems:
        raise LibraryMismatch("tcmma: %s does not match %s: %s; rebuild the package against "
                              "this library or point TCMMA_LIBRARY at a matching build"
                              % (path, origin, "; ".join(problems)))


def _load():
    cdef, version, origin = _declarations()
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    path = _library_path()
    lib = ffi.dlopen(path, ffi.RTLD_NOW | ffi.RTLD_GLOBAL)
    try:
        lib.tcmma_abi_fact
    except AttributeError:
        raise LibraryMismatch("tcmma: %s has no tcmma_abi_fact: it predates the package's "
                              "ABI check; use a newer build" % path)
    _check_abi(ffi, lib, path, origin, version)
    return ffi, lib, path


ffi, lib, library_path = _load()
_sim = None


def sim_lib():
    """libtcmma_sim.so beside the loaded libtcmma.so, loaded RTLD_GLOBAL so that
    the host modules the simulator runs find tcmma_sim_* (loaded on first use)."""
    global _sim
    if _sim is None:
        path = os.environ.get("TCMMA_SIM_LIBRARY") or os.path.join(
            os.path.dirname(library_path), "libtcmma_sim.so")
        if not os.path.isfile(path):
            from .errors import UnavailableError
            raise UnavailableError(None, "no host simulator: %s not found (build it: make "
                                   "build/libtcmma_sim.so, or set TCMMA_SIM_LIBRARY)" % path)
        _sim = ffi.dlopen(path, ffi.RTLD_NOW | ffi.RTLD_GLOBAL)
    return _sim
