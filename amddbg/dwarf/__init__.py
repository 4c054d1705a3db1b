"""DWARF reading for AMDGPU code objects: lines, scopes, types, values, addr2line.

Public API (lazy imports keep ``import amddbg.dwarf`` cheap for the CLI):

* ``DwarfInfo`` (context.py): sections, units, DIEs, range/location lists, line tables.
* ``Symbolizer`` / ``Frame`` (symbolize.py): address -> inlined frames like llvm-addr2line.
* ``LineTable`` (lines.py): v2-5 line programs, address -> row, line -> addresses.
* ``lines_for_disasm(code_object)`` (source.py): source lines to print before instructions.
* ``producer_info`` (producer.py): compiler detection and vendor attribute-code rules.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "DwarfInfo": "amddbg.dwarf.context",
    "Symbolizer": "amddbg.dwarf.symbolize",
    "Frame": "amddbg.dwarf.symbolize",
    "SymbolTable": "amddbg.dwarf.symtab",
    "LineTable": "amddbg.dwarf.lines",
    "LineRow": "amddbg.dwarf.lines",
    "ElfImage": "amddbg.dwarf.sections",
    "producer_info": "amddbg.dwarf.producer",
    "ProducerInfo": "amddbg.dwarf.producer",
    "lines_for_disasm": "amddbg.dwarf.source",
    "SourcePaths": "amddbg.dwarf.source",
    "demangle": "amddbg.dwarf.demangle",
    "Scope": "amddbg.dwarf.scopes",
    "scopes_at": "amddbg.dwarf.scopes",
    "Type": "amddbg.dwarf.types",
    "type_of": "amddbg.dwarf.types",
    "format_value": "amddbg.dwarf.values",
    "format_lanes": "amddbg.dwarf.values",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'amddbg.dwarf' has no attribute {name!r}")
    return getattr(importlib.import_module(mod), name)
