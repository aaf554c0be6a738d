"""The host simulator from Python: a GEMM and a one-warp kernel rendered in the
host dialect, run on the CPU, against numpy."""
import numpy as np
import pytest

import tcmma


def _ints(rng, shape, dtype):
    return rng.integers(-3, 4, shape).astype(dtype)


def test_gemm_on_the_simulator_matches_numpy():
    g = tcmma.gemm_plan(64, 32, 64, "f32", "f16", "f16", block_m=64, block_n=32, block_k=32,
                        warps_m=2, warps_n=1)
    mod = tcmma.sim.HostModule(tcmma.render_gemm(g, dialect="host"))
    rng = np.random.default_rng(1)
    a, b = _ints(rng, (64, 64), np.float16), _ints(rng, (64, 32), np.float16)
    c = _ints(rng, (64, 32), np.float32)
    d = np.zeros((64, 32), np.float32)
    tcmma.sim.launch(mod, "tcmma_gemm_entry", [d, a, b, c, np.float32(2), np.float32(1)],
                     grid=g.grid, block=(g.threads, 1, 1), shared=g.shared_bytes)
    # small integers: every product and sum is exact, so bit for bit
    np.testing.assert_array_equal(d, 2 * (a.astype(np.float32) @ b.astype(np.float32)) + c)


def test_gemm_epilogue_on_the_simulator_matches_numpy():
    g = tcmma.gemm_plan(64, 32, 64, "f32", "f16", "f16", block_m=64, block_n=32, block_k=32,
                        warps_m=2, warps_n=1, epilogue=["bias:col", "relu", "amax"])
    mod = tcmma.sim.HostModule(tcmma.render_gemm(g, dialect="host"))
    rng = np.random.default_rng(3)
    a, b = _ints(rng, (64, 64), np.float16), _ints(rng, (64, 32), np.float16)
    c = np.zeros((64, 32), np.float32)
    bias = _ints(rng, (32,), np.float32)
    amax = np.zeros(1, np.float32)
    d = np.zeros((64, 32), np.float32)
    tcmma.sim.launch(mod, "tcmma_gemm_entry",
                     [d, a, b, c, np.float32(1), np.float32(0), bias, amax],
                     grid=g.grid, block=(g.threads, 1, 1), shared=g.shared_bytes)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    np.testing.assert_array_equal(d, want)
    assert amax[0] == want.max()


def test_split_k_gemm_on_the_simulator_matches_numpy():
    # the workspace goes to the host entry as an array, like d, a, b and c
    g = tcmma.gemm_plan(64, 64, 256, "f32", "bf16", "bf16", block_m=64, block_n=64, block_k=32,
                        warps_m=2, warps_n=2, split_k=3)
    mod = tcmma.sim.HostModule(tcmma.render_gemm(g, dialect="host"))
    rng = np.random.default_rng(4)
    a32, b32 = _ints(rng, (64, 256), np.float32), _ints(rng, (256, 64), np.float32)
    # bf16 storage: the high halves of the f32 bits (small integers are exact)
    a = (a32.view(np.uint32) >> 16).astype(np.uint16)
    b = (b32.view(np.uint32) >> 16).astype(np.uint16)
    c = np.zeros((64, 64), np.float32)
    d = np.zeros((64, 64), np.float32)
    ws = np.zeros(g.info.workspace_bytes, np.uint8)  # its counters zero, as the plan asks
    tcmma.sim.launch(mod, "tcmma_gemm_entry", [d, a, b, c, np.float32(1), np.float32(0), ws],
                     grid=g.grid, block=(g.threads, 1, 1), shared=g.shared_bytes)
    np.testing.assert_array_equal(d, a32 @ b32)
    assert not ws[g.info.workspace_counters:].any()  # each launch leaves them zero


def test_one_warp_kernel_on_the_simulator_matches_numpy():
    p = tcmma.plan(32, 16, 32, "f32", "f16", "f16", scope="fragment", init="zero")
    mod = tcmma.sim.HostModule(tcmma.render_kernel(p, dialect="host"))
    rng = np.random.default_rng(2)
    A, B = _ints(rng, (32, 32), np.float16), _ints(rng, (32, 16), np.float16)
    a = np.full(p.operand_elems("a"), np.nan, np.float16)
    b = np.full(p.operand_elems("b"), np.nan, np.float16)
    d = np.zeros(p.operand_elems("c"), np.float32)
    for i in range(32):
        for j in range(32):
            a[p.operand_index("a", 0, i, j)] = A[i, j]
    for i in range(32):
        for j in range(16):
            b[p.operand_index("b", 0, i, j)] = B[i, j]
    tcmma.sim.launch(mod, "tcmma_kernel_entry", [d, a, b])
    got = np.array([[d[p.operand_index("c", 0, i, j)] for j in range(16)] for i in range(32)])
    np.testing.assert_array_equal(got, A.astype(np.float32) @ B.astype(np.float32))


def test_a_failed_run_raises_and_the_interpreter_lives():
    g = tcmma.gemm_plan(64, 32, 64, "f32", "f16", "f16", block_m=64, block_n=32, block_k=32,
                        warps_m=2, warps_n=1)
    mod = tcmma.sim.HostModule(tcmma.render_gemm(g, dialect="host"))
    bufs = [np.zeros(64 * 64, np.float32) for _ in range(4)]
    with pytest.raises(tcmma.InvalidError) as e:  # a partial warp at a collective
        tcmma.sim.launch(mod, "tcmma_gemm_entry", bufs + [1.0, 0.0], grid=g.grid,
                         block=(g.threads - 16, 1, 1), shared=g.shared_bytes)
    assert e.value.status == tcmma.Status.INVALID and e.value.message
    with pytest.raises(tcmma.InvalidError, match="no function"):
        mod.entry("missing")
    with pytest.raises(tcmma.InvalidError, match="does not compile"):
        tcmma.sim.HostModule("this is not C")
    with pytest.raises(tcmma.InvalidError, match="grid"):
        tcmma.sim.launch(mod, "tcmma_gemm_entry", bufs, grid=(1, 1))
