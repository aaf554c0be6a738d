"""The compile cache (memory + disk)."""
import typing

from ._core import call, dataclass_of, ffi, lib, to_dataclass, _s

CacheInfo = dataclass_of("tcmma_cache_info", "CacheInfo")


def info() -> CacheInfo:
    """Directory, whether it is used (and why not), entries, bytes, bound."""
    out = ffi.new("tcmma_cache_info *")
    call(lib.tcmma_cache_info_get, out)
    return to_dataclass(out)


def clear() -> CacheInfo:
    """Removes every disk entry and empties the memory cache; what was removed."""
    out = ffi.new("tcmma_cache_info *")
    call(lib.tcmma_cache_clear, out)
    return to_dataclass(out)


def clear_memory() -> None:
    """Empties the in-memory cache only."""
    lib.tcmma_cache_clear_memory()


def directory() -> typing.Optional[str]:
    """The disk cache directory in use; None when the disk cache is off."""
    buf = ffi.new("char[4096]")
    return ffi.string(buf).decode() if lib.tcmma_cache_dir(buf, 4096) else None


def warning() -> typing.Optional[str]:
    """The one warning the cache raised in this process, or None."""
    return _s(lib.tcmma_cache_warning())
