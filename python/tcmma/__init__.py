"""tcmma: tensor-core tile-MMA emission for CUDA code generators, from Python.

A thin binding of libtcmma (cffi, declarations generated from the public
headers): plan a tile-MMA, render it as CUDA text, pick the arch options,
compile with NVRTC, read the PTX, run host-dialect text on the simulator,
launch on a device. Errors are exceptions carrying the status and message.
"""
# ffi, lib: the raw cffi binding (every public function and struct), for what
# the Pythonic layer does not cover.
from ._ffi import LibraryMismatch, ffi, lib, library_path
from ._core import (Arm, Decline, Dialect, Form, Fp16, GemmDecline, HitKind, Init,
                    LdmatrixRule, Marker, Operand, Prec, Prefer, PtxSuffix, Scope, Space,
                    Status, Swizzle, Target)
from .errors import CompileError, Declined, InvalidError, TcmmaError, UnavailableError
from ._plan import (ArmInfo, Census, Coord, OperandDesc, Plan, arm_info, arms, fragment_layout,
                    plan, resolve, swizzle_offset)
from ._render import (Names, kernel_shared_bytes, render_acc_init, render_acc_store,
                      render_frag_decl, render_frag_load, render_frag_mma,
                      render_fragment_close, render_fragment_open, render_fragment_update,
                      render_includes, render_kernel, render_prologue, render_stage,
                      render_statement)
from ._gemm import GemmPlan, gemm, gemm_plan, render_gemm
from ._compile import (ArchOptions, Program, Record, compile, compile_batch, current_target,
                       nvrtc, options, target)
from ._driver import DeviceInfo, Module, Pointer, devices, driver_version, launch
from . import cache, ptx, sim

__version__ = ffi.string(lib.tcmma_version()).decode()

__all__ = [n for n in dir() if not n.startswith("_")]
