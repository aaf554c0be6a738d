"""Every renderer: statement, fragment scope, pieces, prologue, includes, stage,
kernel, GEMM; and their error paths."""
import pytest

import tcmma


@pytest.fixture
def frag_plan():
    return tcmma.plan(32, 16, 32, "f32", "bf16", "bf16", scope="fragment", cc=80)


def test_statement():
    text = tcmma.render_statement(tcmma.plan(16, 8, 16), "d", "a", "b")
    assert "(mma-f16)" in text and "mma.sync" in text
    host = tcmma.render_statement(tcmma.plan(16, 8, 16), "d", "a", "b", dialect="host")
    assert "tcmma_sim_mma" in host


def test_names_number_the_blocks():
    names = tcmma.Names("gen_")
    p = tcmma.plan(16, 8, 16)
    first = tcmma.render_statement(p, "d", "a", "b", names=names)
    second = tcmma.render_statement(p, "d", "a", "b", names=names)
    assert "gen_0_" in first and "gen_1_" in second and names.next == 2


def test_fragment_scope(frag_plan):
    names = tcmma.Names()
    opened = tcmma.render_fragment_open(frag_plan, "acc", "d", names=names)
    update = tcmma.render_fragment_update(frag_plan, "acc", "a", "b", names=names)
    closed = tcmma.render_fragment_close(frag_plan, "acc", "d", names=names)
    assert "acc" in opened and "mma.sync" in update and "acc" in closed


def test_pieces(frag_plan):
    names = tcmma.Names()
    decl = tcmma.render_frag_decl(frag_plan, "a", "af", buffers=2)
    assert "af[2]" in decl
    tcmma.render_frag_decl(frag_plan, "b", "bf")
    tcmma.render_frag_decl(frag_plan, "c", "acc")
    load = tcmma.render_frag_load(frag_plan, "a", "af[0]", "a", "0", names=names)
    mma = tcmma.render_frag_mma(frag_plan, "acc", "af[0]", "bf", names=names)
    init = tcmma.render_acc_init(frag_plan, "acc", "d", names=names)
    store = tcmma.render_acc_store(frag_plan, "acc", "d", names=names)
    assert load and "mma.sync" in mma and init and store
    with pytest.raises(tcmma.InvalidError):
        tcmma.render_frag_decl(frag_plan, "c", "acc", buffers=2)


def test_prologue_includes_stage(frag_plan):
    tcmma.render_prologue([frag_plan])
    assert tcmma.kernel_shared_bytes(frag_plan) >= 0
    assert "sim.h" in tcmma.render_includes(frag_plan, dialect="host")
    assert "cuda_bf16.h" in tcmma.render_includes(frag_plan, vendor_headers=True)
    stage = tcmma.render_stage("dst", "src", 16, 64, 2, swizzle="128")
    assert "cp.async" in stage
    with pytest.raises(tcmma.InvalidError):
        tcmma.render_stage("dst", "src", -1, 64, 2)
    with pytest.raises(tcmma.InvalidError, match="'9'"):
        tcmma.render_stage("dst", "src", 16, 64, 2, swizzle="9")


def test_kernel(frag_plan):
    text = tcmma.render_kernel(frag_plan, outer=2, pieces=True)
    assert 'extern "C" __global__' in text and "tcmma_kernel" in text
    assert "tcmma_kernel_entry" in tcmma.render_kernel(frag_plan, dialect="host")
    with pytest.raises(tcmma.InvalidError):
        tcmma.render_kernel(frag_plan, outer=5000)


def test_render_errors(frag_plan):
    with pytest.raises(tcmma.InvalidError, match="empty"):
        tcmma.render_statement(tcmma.plan(16, 8, 16), "", "a", "b")
    with pytest.raises(TypeError, match="tcmma.Plan"):
        tcmma.render_statement("plan", "d", "a", "b")
    with pytest.raises(TypeError, match="must be a str"):
        tcmma.render_statement(tcmma.plan(16, 8, 16), 3, "a", "b")
    with pytest.raises(tcmma.InvalidError, match="'ptx'"):
        tcmma.render_statement(tcmma.plan(16, 8, 16), "d", "a", "b", dialect="ptx")
    with pytest.raises(TypeError, match="Names"):
        tcmma.render_statement(tcmma.plan(16, 8, 16), "d", "a", "b", names="x")
    with pytest.raises(tcmma.InvalidError):
        tcmma.render_fragment_open(frag_plan, "not an identifier", "d")


def test_gemm():
    p, text = tcmma.gemm(256, 256, 128, "f32", "bf16", "bf16", cc=80, name="my_gemm")
    assert p.grid == (2, 2, 1) and p.threads == 128 and p.figures.arm == tcmma.Arm.MMA_BF16
    assert "my_gemm" in text and "cp.async" in text
    assert "my_gemm_entry" in tcmma.render_gemm(p, dialect="host")
    with pytest.raises(tcmma.Declined, match="48") as e:
        tcmma.gemm_plan(64, 64, 64, block_m=48)
    assert isinstance(e.value.reason, tcmma.GemmDecline)
    with pytest.raises(TypeError):
        tcmma.render_gemm(tcmma.plan(16, 8, 16))
    with pytest.raises(TypeError, match="block_m"):
        tcmma.gemm_plan(64, 64, 64, block_m=1.5)


def test_gemm_options():
    # a dense bf16 127x129x65: 2-byte rows, one kernel for every shape
    p, text = tcmma.gemm(127, 129, 65, "f32", "bf16", "bf16", cc=80, block_m=64, block_n=64,
                         shape_args=True)
    assert p.info.a_align == 2 and p.info.a_plain and p.info.m_multiple == 1
    assert "int m, int n, int k, int lda" in text
    p, text = tcmma.gemm(64, 64, 256, "f32", "bf16", "bf16", cc=80, block_m=64, block_n=64,
                         split_k=3, batch=2)
    assert p.grid == (1, 1, 6) and "atomicAdd" in text
    assert p.info.workspace_bytes == 2 * 3 * 64 * 64 * 4 + 2 * 4
    with pytest.raises(tcmma.Declined, match="split_k 9"):
        tcmma.gemm_plan(64, 64, 256, split_k=9)


def test_gemm_block_scaled():
    # NVFP4 at cc 12.0: packed e2m1, a ue4m3 scale per 16 k in sfa and sfb
    b = tcmma.OperandDesc("nvf4", transposed=True)
    p, text = tcmma.gemm(128, 128, 200, "f32", "nvf4", b, cc=120, block_m=64, block_n=64,
                         block_k=128)
    assert p.figures.arm == tcmma.Arm.MMA_NVF4
    assert p.info.pack == 2 and p.info.scale_block == 16 and p.info.scale_ld == 16
    assert "const unsigned char *sfa, const unsigned char *sfb)" in text
    with pytest.raises(tcmma.Declined, match="k-major"):
        tcmma.gemm_plan(128, 128, 256, "f32", tcmma.OperandDesc("nvf4", transposed=True), b,
                        cc=120, block_k=128)


def test_gemm_kernel_kinds():
    # cc 90 with b stored n x k: auto takes the wgmma kernel, its maps last
    b = tcmma.OperandDesc("bf16", transposed=True)
    p, text = tcmma.gemm(256, 256, 128, "f32", "bf16", b, cc=90)
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_WGMMA and p.threads == 384
    assert "const __grid_constant__ CUtensorMap tmap_b)" in text
    p, text = tcmma.gemm(256, 256, 128, "f32", "bf16", b, cc=90, kernel="mma-sync")
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_MMA_SYNC and "CUtensorMap" not in text
    # an N-major b (stored k x n): the wgmma kernel too, a box per 64-column panel
    p = tcmma.gemm_plan(256, 256, 128, "f32", "bf16", "bf16", cc=90)
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_WGMMA
    assert p.info.b_copy_bytes == 64 * 64 * 2
    with pytest.raises(tcmma.Declined, match="K-major only"):  # fp8 rows: K-major only
        tcmma.gemm_plan(256, 256, 128, "f32", "e4m3", "e4m3", cc=90, kernel="wgmma")
    with pytest.raises(tcmma.TcmmaError, match="hopper"):
        tcmma.gemm_plan(256, 256, 128, cc=90, kernel="hopper")
    # cc 100: auto takes the tcgen05 kernel (Tensor Memory, sm_100f), its maps last
    p, text = tcmma.gemm(256, 256, 128, "f32", "bf16", b, cc=100)
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_TCGEN05 and p.threads == 192
    assert p.info.tmem_columns == 256 and p.info.arch_suffix == "f"
    assert "tcgen05.mma.cta_group::1.kind::f16" in text and "tmap_b)" in text
    p = tcmma.gemm_plan(256, 256, 128, "f32", "bf16", b, cc=100, kernel="tcgen05")
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_TCGEN05
    p = tcmma.gemm_plan(256, 256, 128, "f32", "bf16", "bf16", cc=100, kernel="tcgen05")
    assert p.info.b_copy_bytes == 64 * 64 * 2  # an N-major b: a box per 64-column panel
    # an M-major a (stored k x m): two 64-column panels, a box each; fp8: K-major only
    p = tcmma.gemm_plan(256, 256, 128, "f32", tcmma.OperandDesc("bf16", transposed=True), b,
                        cc=100)
    assert p.info.kernel == tcmma.lib.TCMMA_GEMM_KERNEL_TCGEN05
    assert p.info.a_copy_bytes == 64 * 64 * 2
    with pytest.raises(tcmma.Declined, match="K-major"):
        tcmma.gemm_plan(256, 256, 128, "f32", tcmma.OperandDesc("e4m3", transposed=True),
                        tcmma.OperandDesc("e4m3", transposed=True), cc=100, kernel="tcgen05")


def test_gemm_epilogue():
    p, text = tcmma.gemm(64, 64, 64, "f32", "bf16", "bf16", cc=80, block_m=64, block_n=64,
                         epilogue=["bias:col", "gelu-tanh", "clamp:-1:6", "amax", "hook",
                                   "cvt:e4m3"], hook="return x + (float)row;")
    assert "const float *bias0, float *amax3)" in text and "__nv_fp8_e4m3 *d" in text
    assert "return x + (float)row;" in text
    assert "tcmma_sim_float2fp8_e4m3" in tcmma.render_gemm(p, dialect="host")
    with pytest.raises(tcmma.Declined):  # cvt must be last
        tcmma.gemm_plan(64, 64, 64, block_m=64, block_n=64, epilogue=["cvt:bf16", "relu"])
    with pytest.raises(ValueError, match="expected bias:row|col"):
        tcmma.gemm_plan(64, 64, 64, epilogue=["bias:diag"])
    with pytest.raises(tcmma.TcmmaError, match="expected one of"):
        tcmma.gemm_plan(64, 64, 64, epilogue=["swish"])
    # the list is one of the GEMM options: with a batch, split-K and shape arguments
    p, text = tcmma.gemm(64, 64, 256, "f32", "bf16", "bf16", cc=80, block_m=64, block_n=64,
                         split_k=2, batch=2, shape_args=True,
                         epilogue=["bias:col", "residual", "amax"])
    assert p.info.split_k == 2 and p.info.batch == 2
    assert "void *workspace, const float *bias0, const float *residual1, float *amax2)" in text
    assert "residual1 += (size_t)__tcmma_g_bz * stride_c;" in text
    with pytest.raises(tcmma.Declined, match="pointer_array"):
        tcmma.gemm_plan(64, 64, 64, batch=2, pointer_array=True, epilogue=["residual"])
