"""The PTX reader: header, entries, instruction census, required target."""
import dataclasses
import typing

from ._core import PtxSuffix, call, ffi, lib, new_error, check, _s


@dataclasses.dataclass(frozen=True)
class PtxInfo:
    """A PTX module as tcmma_ptx_parse reads it."""
    version: typing.Tuple[int, int]
    target: str
    target_sm: int
    target_suffix: str
    modifiers: typing.List[str]
    address_size: int
    entries: typing.List[str]
    census: typing.Dict[str, int]
    instruction_count: int
    required_sm: int
    required_suffix: PtxSuffix
    required_by: typing.Optional[str]
    required_ptx: int
    no_target: bool
    required: str          # for people: "sm_80", "sm_90a", "none", "no target"

    def count(self, prefix: str) -> int:
        """Sum of the census counts of opcodes whose leading parts are prefix."""
        parts = prefix.split(".")
        return sum(c for op, c in self.census.items() if op.split(".")[:len(parts)] == parts)


def read(text) -> PtxInfo:
    """Parses PTX text (str or bytes); raises TcmmaError (status PARSE) for input
    that is not PTX, TypeError for a non-text argument."""
    if isinstance(text, str):
        text = text.encode()
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError("ptx.read takes PTX text (str or bytes), not %r" % type(text).__name__)
    text = bytes(text)
    info = ffi.new("tcmma_ptx_info *")
    try:
        call(lib.tcmma_ptx_parse, text, len(text), info)
        req = ffi.new("char[64]")
        lib.tcmma_ptx_required_text(info, req, 64)
        return PtxInfo(
            version=(info.version_major, info.version_minor), target=_s(info.target),
            target_sm=info.target_sm,
            target_suffix=info.target_suffix.decode() if info.target_suffix != b"\0" else "",
            modifiers=[_s(info.modifiers[i]) for i in range(info.modifier_count)],
            address_size=info.address_size,
            entries=[_s(info.entries[i]) for i in range(info.entry_count)],
            census={_s(info.census[i].opcode): info.census[i].count
                    for i in range(info.census_count)},
            instruction_count=info.instruction_count, required_sm=info.required_sm,
            required_suffix=PtxSuffix(info.required_suffix), required_by=_s(info.required_by),
            required_ptx=info.required_ptx, no_target=bool(info.no_target),
            required=ffi.string(req).decode())
    finally:
        lib.tcmma_ptx_info_free(info)


def check_on(text, target: str) -> None:
    """Raises TcmmaError (FLOOR) when the module does not load on target
    ("sm_80", "sm_90a")."""
    if isinstance(text, str):
        text = text.encode()
    sm, suffix = ffi.new("int *"), ffi.new("char *")
    call(lib.tcmma_ptx_target_parse, target.encode(), sm, suffix)
    info = ffi.new("tcmma_ptx_info *")
    try:
        call(lib.tcmma_ptx_parse, text, len(text), info)
        call(lib.tcmma_ptx_check_on, info, sm[0], suffix[0])
    finally:
        lib.tcmma_ptx_info_free(info)
