"""options, compile (round trip with the PTX census), compile_batch, ptx.read,
target scopes and the cache."""
import uuid

import pytest

import tcmma
from conftest import needs_nvrtc

TRIVIAL = 'extern "C" __global__ void %s(float *p) { p[threadIdx.x] = %s; }\n'


def test_options_from_markers():
    p = tcmma.plan(16, 8, 16, "f32", "bf16", "bf16", cc=80)
    src = tcmma.render_kernel(p)
    o = tcmma.options(src)
    assert o.option == "--gpu-architecture=compute_80" and o.floor == 80
    assert any("mma-bf16" in h.text for h in o.markers)
    with pytest.raises(tcmma.TcmmaError) as e:
        tcmma.options(src, cc=75)
    assert e.value.status == tcmma.Status.FLOOR
    with pytest.raises(TypeError):
        tcmma.options(42)


@needs_nvrtc
def test_round_trip_fragment_scope_kernel():
    p = tcmma.plan(32, 16, 32, "f32", "bf16", "bf16", scope="fragment", cc=80)
    prog = tcmma.compile(tcmma.render_kernel(p, outer=2), cc=80)
    assert prog.target == "sm_80" and prog.ptx.startswith(b"//")
    op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    info = tcmma.ptx.read(prog.ptx)
    assert info.entries == ["tcmma_kernel"] and info.required == "sm_80"
    n = prog.census[op]
    assert n > 0 and n % p.census().mma_per_statement == 0
    assert info.count("mma.sync") == n


@needs_nvrtc
def test_cubin_and_ptxas_figures():
    prog = tcmma.compile(TRIVIAL % ("k_sass", "1.0f"), sass=True, arch=80)
    assert prog.cubin[:4] == b"\x7fELF" and prog.ptxas_info and prog.registers > 0


@needs_nvrtc
def test_compile_errors_carry_the_log():
    with pytest.raises(tcmma.CompileError) as e:
        tcmma.compile('extern "C" __global__ void broken( { }')
    assert e.value.status == tcmma.Status.COMPILE and "error" in e.value.log
    with pytest.raises(tcmma.InvalidError):
        tcmma.compile(TRIVIAL % ("k", "1"), defines=["1bad"])
    with pytest.raises(TypeError):
        tcmma.compile(TRIVIAL % ("k", "1"), extra="-G")
    with pytest.raises(tcmma.InvalidError, match="'z'"):
        tcmma.compile(TRIVIAL % ("k", "1"), arch=80, arch_suffix="z")


@needs_nvrtc
def test_compile_batch_splits_per_kernel():
    src = TRIVIAL % ("first", "1.0f") + TRIVIAL % ("second", "2.0f")
    progs = tcmma.compile_batch(src, ["first", "second"], cc=80)
    assert [tcmma.ptx.read(p.ptx).entries for p in progs] == [["first"], ["second"]]
    with pytest.raises(tcmma.InvalidError):
        tcmma.compile_batch(src, ["first", "first"])


@needs_nvrtc
def test_target_scope_records_what_it_compiled():
    src = TRIVIAL % ("scoped", "1.0f") + "// %s\n" % uuid.uuid4()
    with tcmma.target("floor") as records:
        assert tcmma.current_target() == tcmma.Target.FLOOR
        tcmma.compile(src)
    assert len(records) == 1 and records[0].target_arch.startswith("sm_")
    with pytest.raises(tcmma.InvalidError):
        with tcmma.target("sideways"):
            pass


def test_ptx_read_errors():
    with pytest.raises(tcmma.TcmmaError, match="PTX") as e:
        tcmma.ptx.read("garbage")
    assert e.value.status == tcmma.Status.PARSE
    with pytest.raises(TypeError):
        tcmma.ptx.read(42)
    ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { ret; }\n"
    info = tcmma.ptx.read(ptx)
    assert info.target == "sm_90a" and info.entries == ["k"] and info.version == (8, 0)


def test_cache_info_and_clear(python, tmp_path):
    info = tcmma.cache.info()
    assert isinstance(info.enabled, bool) and info.max_bytes > 0
    # clear() empties the cache directory: a private one, in a fresh process
    (tmp_path / "c").mkdir(mode=0o700)
    rc, out, err = python(
        "import tcmma; i = tcmma.cache.info(); r = tcmma.cache.clear(); "
        "print(i.directory == r.directory, tcmma.cache.directory())",
        env={"TCMMA_CACHE_DIR": str(tmp_path / "c")})
    assert rc == 0, err
    assert out.split()[0] == "True" and str(tmp_path / "c") in out
    rc, out, err = python("import tcmma; tcmma.cache.clear()", env={"TCMMA_CACHE": "0"})
    assert rc != 0 and "UnavailableError" in err


@needs_nvrtc
def test_nvrtc_facts():
    n = tcmma.nvrtc()
    assert n.major >= 11 and n.library and n.include_dir


def test_ptx_check_on():
    ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"
    tcmma.ptx.check_on(ptx, "sm_90")
    with pytest.raises(tcmma.TcmmaError) as e:
        tcmma.ptx.check_on(ptx, "sm_75")
    assert e.value.status == tcmma.Status.FLOOR
    with pytest.raises(tcmma.InvalidError, match="sm_x"):
        tcmma.ptx.check_on(ptx, "sm_x")


def test_cache_directory_warning_memory():
    d = tcmma.cache.directory()
    assert d is None or isinstance(d, str)
    assert tcmma.cache.warning() is None or isinstance(tcmma.cache.warning(), str)
    tcmma.cache.clear_memory()
