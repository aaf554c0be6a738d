"""arms, resolve, plan and their error paths."""
import dataclasses

import pytest

import tcmma


def test_arms_is_the_descriptor():
    every = tcmma.arms()
    assert len(every) == len([a for a in tcmma.Arm if a >= 0])
    assert dataclasses.is_dataclass(every[0]) and isinstance(every[0].id, tcmma.Arm)
    on75 = tcmma.arms(75)
    assert all(a.floor <= 75 for a in on75) and len(on75) < len(every)
    assert tcmma.arm_info("mma-bf16").k == 16


def test_resolve():
    assert tcmma.resolve("f32", "bf16", "bf16", cc=80) == tcmma.Arm.MMA_BF16
    assert tcmma.resolve(tcmma.Prec.F32, "f16", "f16", prefer="wmma").label.startswith("wmma")
    assert tcmma.resolve("f16", "f16", "f16", fp16="narrow") != tcmma.resolve("f16", "f16", "f16")


def test_resolve_errors_name_the_value():
    with pytest.raises(tcmma.InvalidError, match="'f33'") as e:
        tcmma.resolve("f32", "f33", "bf16")
    assert e.value.status == tcmma.Status.INVALID
    with pytest.raises(tcmma.TcmmaError, match="cc 75") as e:
        tcmma.resolve("f32", "bf16", "bf16", cc=75)
    assert e.value.status == tcmma.Status.FLOOR
    with pytest.raises(TypeError, match="1.5"):
        tcmma.resolve(1.5, "f16", "f16")
    with pytest.raises(tcmma.InvalidError, match="'frag'"):
        tcmma.resolve("f32", "f16", "f16", scope="frag")
    with pytest.raises(tcmma.InvalidError, match="99"):
        tcmma.resolve(99, "f16", "f16")
    with pytest.raises(TypeError, match="cc"):
        tcmma.resolve("f32", "f16", "f16", cc="80")
    with pytest.raises(tcmma.TcmmaError) as e:
        tcmma.resolve("s32", "f16", "f16")
    assert e.value.status == tcmma.Status.NO_ARM


def test_plan_accepts():
    p = tcmma.plan(32, 16, 32, "f32", "bf16", "bf16", scope="fragment", cc=80)
    assert (p.arm, p.mt, p.nt, p.kt) == (tcmma.Arm.MMA_BF16, 2, 2, 2)
    c = p.census()
    assert c.mma_per_statement == 8 and isinstance(c.a_ldmatrix, bool)
    assert p.operand_elems("a") == 32 * 32 and p.operand_index("c", 0, 1, 0) == 16


def test_plan_declines_with_reason():
    for m in (-16, 15):
        with pytest.raises(tcmma.Declined, match="m = %d" % m) as e:
            tcmma.plan(m, 8, 16)
        assert e.value.reason == tcmma.Decline.EXTENTS and e.value.reason.rule


def test_plan_operand_descriptions():
    a = tcmma.OperandDesc("f16", space="shared", swizzle="128", ld=64)
    p = tcmma.plan(16, 8, 64, "f32", a, "f16")
    assert p.a_ldmatrix
    with pytest.raises(tcmma.InvalidError, match="'bogus'"):
        tcmma.plan(16, 8, 16, "f32", tcmma.OperandDesc("f16", space="bogus"), "f16")
    with pytest.raises(tcmma.InvalidError, match="'7'"):
        tcmma.plan(16, 8, 16, "f32", tcmma.OperandDesc("f16", swizzle="7"), "f16")
    with pytest.raises(TypeError, match="operand a"):
        tcmma.plan(16, 8, 16, "f32", 3.0, "f16")
    with pytest.raises(TypeError, match="transposed"):
        tcmma.plan(16, 8, 16, "f32", tcmma.OperandDesc("f16", transposed=1), "f16")


def test_plan_rejects_malformed_arguments():
    with pytest.raises(TypeError, match="m must be an int"):
        tcmma.plan("16", 8, 16)
    with pytest.raises(tcmma.InvalidError, match="'sideways'"):
        tcmma.plan(16, 8, 16, init="sideways")
    with pytest.raises(tcmma.InvalidError, match="NUL"):
        tcmma.plan(16, 8, 16, lane="x\0y")
    with pytest.raises(tcmma.Declined):
        tcmma.plan(16, 8, 16, arm="mma-bf16")
    with pytest.raises(tcmma.InvalidError, match=str(2**40)):
        tcmma.plan(2**40, 8, 16)
    with pytest.raises(tcmma.InvalidError, match="d ld"):
        tcmma.plan(16, 8, 16, tcmma.OperandDesc("f32", ld=2**70))


def test_fragment_layout_and_swizzle():
    # PTX ISA, m16n8k16 C fragment: lane 5 register 0 holds row 5 / 4 = 1, col 2 * (5 % 4) = 2
    assert tcmma.fragment_layout("mma-f16", "c", 5, 0, 0) == (1, 2)
    with pytest.raises(tcmma.InvalidError):
        tcmma.fragment_layout("wmma-f16", "a", 0, 0, 0)
    with pytest.raises(tcmma.InvalidError):
        tcmma.fragment_layout("mma-f16", "c", 32, 0, 0)
    assert tcmma.swizzle_offset("none", 1, 4, 128) == 132
    assert tcmma.swizzle_offset("128", 1, 0, 128) == 128 + 16
    with pytest.raises(tcmma.InvalidError, match="swizzle 128"):
        tcmma.swizzle_offset("128", 1, 0, 100)
