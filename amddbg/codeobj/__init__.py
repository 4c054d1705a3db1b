"""AMDGPU code objects: ELF header and e_flags, notes (msgpack metadata), kernel descriptors, symbols,
offload bundles and code-object URIs. `CodeObject` is the entry point; `open_container` also accepts
bundles and host binaries that embed device code.

The names below are imported on first use (module ``__getattr__``), as in ``amddbg.dwarf``: a command
that needs one submodule (``amddbg addr2line`` reads only ``codeobj.elf``) does not pay for importing
the notes, msgpack and dataclass-heavy ones (~20 ms of start-up).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "BundleEntry": "amddbg.codeobj.bundle",
    "iter_bundle_entries": "amddbg.codeobj.bundle",
    "CodeObject": "amddbg.codeobj.codeobject",
    "CodeSection": "amddbg.codeobj.codeobject",
    "Kernel": "amddbg.codeobj.codeobject",
    "Symbol": "amddbg.codeobj.codeobject",
    "EmbeddedCodeObject": "amddbg.codeobj.container",
    "classify": "amddbg.codeobj.container",
    "embedded_code_objects": "amddbg.codeobj.container",
    "PROCESSORS": "amddbg.codeobj.processors",
    "Processor": "amddbg.codeobj.processors",
    "Target": "amddbg.codeobj.target",
    "CodeObjectURI": "amddbg.codeobj.uri",
    "parse_uri": "amddbg.codeobj.uri",
}

__all__ = sorted(_EXPORTS)

def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'amddbg.codeobj' has no attribute {name!r}")
    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
