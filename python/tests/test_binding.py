"""The binding itself: declarations generated from the headers, the ABI check
at import, enums from the headers, struct creation through *_default()."""
import os

import cffi
import pytest

import tcmma
from tcmma import _cdefgen, _ffi


def test_version_is_the_headers():
    root = os.environ.get("TCMMA_SRCDIR") or os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    assert tcmma.__version__ == _cdefgen.version_of(os.path.join(root, "include"))


def test_the_library_reports_every_fact_the_package_checks():
    name, value = tcmma.ffi.new("const char **"), tcmma.ffi.new("long *")
    facts = {}
    i = 0
    while tcmma.lib.tcmma_abi_fact(i, name, value):
        facts[tcmma.ffi.string(name[0]).decode()] = value[0]
        i += 1
    assert facts["tcmma_call"] == tcmma.ffi.sizeof("tcmma_call")
    assert facts["TCMMA_ARM_COUNT"] == len([a for a in tcmma.Arm if a >= 0])
    assert not tcmma.lib.tcmma_abi_fact(i, name, value)


def _mutant_ffi(old, new):
    cdef, _, _ = _ffi._declarations()
    assert old in cdef
    f = cffi.FFI()
    f.cdef(cdef.replace(old, new, 1))
    return f, f.dlopen(_ffi.library_path)


def test_a_struct_that_differs_fails_the_check_naming_it():
    f, lib = _mutant_ffi("int registers;\n} tcmma_call;",
                         "int registers;\n  long added;\n} tcmma_call;")
    with pytest.raises(tcmma.LibraryMismatch, match=r"sizeof\(tcmma_call\)"):
        _ffi._check_abi(f, lib, _ffi.library_path, "a mutant", tcmma.__version__)


def test_an_enum_that_differs_fails_the_check_naming_it():
    # values are explicit (a row inserted keeps the others'): a count that
    # differs is a table that grew or shrank
    f, lib = _mutant_ffi("TCMMA_ARM_COUNT = ", "TCMMA_ARM_COUNT = 1 + ")
    with pytest.raises(tcmma.LibraryMismatch, match="TCMMA_ARM_COUNT"):
        _ffi._check_abi(f, lib, _ffi.library_path, "a mutant", tcmma.__version__)


def test_another_version_fails_the_check():
    with pytest.raises(tcmma.LibraryMismatch, match="version"):
        _ffi._check_abi(_ffi.ffi, _ffi.lib, _ffi.library_path, "x", "0.0.0-other")


def test_import_fails_clearly_for_a_missing_library(python):
    rc, out, err = python("import tcmma", env={"TCMMA_LIBRARY": "/nonexistent/libtcmma.so"})
    assert rc != 0 and "TCMMA_LIBRARY=/nonexistent/libtcmma.so is not a file" in err


def test_the_cleaner_drops_what_cffi_cannot_parse():
    text = ("typedef struct { __tcmma_alignas__ float x; } pair;\npair mk(float x);\n"
            "int f(const char *s, ...) __attribute__((format(printf, 1, 2)));\n"
            "#pragma GCC visibility push(default)\nint g(void);\n")
    out = _cdefgen.clean(text)
    assert "pair" not in out and "__attribute__" not in out and "#pragma" not in out
    assert "int g(void);" in out and "int f(const char *s, ...)" in out
    cffi.FFI().cdef(out)


def test_enums_are_the_headers():
    assert tcmma.Prec.F32.label == "f32" and str(tcmma.Prec.BF16) == "bf16"
    assert tcmma.Arm.NONE == -1 and tcmma.Arm.MMA_BF16.label == "mma-bf16"
    assert tcmma.Status.FLOOR.meaning.startswith("the device is below")
    assert tcmma.Decline.EXTENTS.rule


def test_structs_come_from_the_library_defaults():
    from tcmma._core import new_struct
    c = new_struct("tcmma_call")
    ref = tcmma.ffi.new("tcmma_call *")
    tcmma.lib.tcmma_call_init(ref, tcmma.ffi.sizeof("tcmma_call"))
    assert bytes(tcmma.ffi.buffer(c)) == bytes(tcmma.ffi.buffer(ref))
    assert c.size == tcmma.ffi.sizeof("tcmma_call") and c.d.prec == tcmma.lib.TCMMA_PREC_F32


def test_a_struct_without_a_default_gets_its_size_set():
    from tcmma._core import new_struct
    f = cffi.FFI()
    f.cdef("typedef struct { size_t size; int x; } grown;")
    import tcmma._core as core
    old = core.ffi
    core.ffi = f
    try:
        p = new_struct("grown", library=object())
    finally:
        core.ffi = old
    assert p.size == f.sizeof("grown") and p.x == 0


def test_an_enum_value_the_library_names_otherwise_fails_the_check():
    import enum
    from tcmma._core import check_enum_names
    moved = enum.IntEnum("Prec", {"F32": int(tcmma.Prec.F16), "F16": int(tcmma.Prec.F32)})
    moved.label = property(lambda self: tcmma.Prec(int(self)).label)
    with pytest.raises(tcmma.LibraryMismatch, match=r"Prec.F32 = %d is 'f16'"
                       % int(tcmma.Prec.F16)):
        check_enum_names([moved], "libtcmma.so")
    check_enum_names([tcmma.Prec, tcmma.Arm], "libtcmma.so")


def test_import_fails_clearly_for_a_library_without_the_facts(python, tmp_path):
    # any shared object without tcmma_abi_fact: an older libtcmma, or not one at all
    so = tmp_path / "libold.so"
    src = tmp_path / "old.c"
    src.write_text("int tcmma_version_is_missing(void) { return 0; }\n")
    import shlex
    import subprocess
    subprocess.check_call(shlex.split(os.environ.get("CC", "cc")) +
                          ["-shared", "-fPIC", "-o", str(so), str(src)])
    rc, out, err = python("import tcmma", env={"TCMMA_LIBRARY": str(so)})
    assert rc != 0 and "LibraryMismatch" in err and "has no tcmma_abi_fact" in err
