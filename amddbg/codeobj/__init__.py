"""AMDGPU code objects: ELF header and e_flags, notes (msgpack metadata), kernel descriptors, symbols,
offload bundles and code-object URIs. `CodeObject` is the entry point; `open_container` also accepts
bundles and host binaries that embed device code."""

from amddbg.codeobj.bundle import BundleEntry, iter_bundle_entries
from amddbg.codeobj.codeobject import CodeObject, CodeSection, Kernel, Symbol
from amddbg.codeobj.container import EmbeddedCodeObject, classify, embedded_code_objects
from amddbg.codeobj.processors import PROCESSORS, Processor
from amddbg.codeobj.target import Target
from amddbg.codeobj.uri import CodeObjectURI, parse_uri

__all__ = [
    "PROCESSORS",
    "BundleEntry",
    "CodeObject",
    "CodeObjectURI",
    "CodeSection",
    "EmbeddedCodeObject",
    "Kernel",
    "Processor",
    "Symbol",
    "Target",
    "classify",
    "embedded_code_objects",
    "iter_bundle_entries",
    "parse_uri",
]
