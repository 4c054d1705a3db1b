"""amddbg: a postmortem debugger for AMD GPUs.

The Python API comes first; the CLI (`amddbg.cli`) and the REPL (`amddbg.repl`) are thin layers over it.
Data flows one way: bytes -> parsed model (codeobj, isa, dwarf, core) -> session -> views.
"""

from amddbg.errors import AmddbgError, FormatError, NotSupported, Unavailable

__version__ = "0.1.0"

__all__ = [
    "AmddbgError",
    "FormatError",
    "NotSupported",
    "Unavailable",
    "__version__",
    "open",
    "open_code_object",
    "open_core",
]


def open_code_object(path):
    """Open an AMDGPU code object (ET_DYN/ET_REL ELF) and return its parsed model.

    Imported lazily so that `import amddbg` stays cheap for plugin discovery and the CLI.
    """
    from amddbg.codeobj import CodeObject

    return CodeObject.from_path(path)


def open_core(path_or_paths, *, sysroot=None, solib_search_path=None):
    """Open a GPU core (split `core.gpu`, unified, or a host core + GPU core pair) as a `Core`.

    `sysroot` prefixes file:// code object paths; `solib_search_path` lists directories to look in.
    """
    from amddbg.core import open_core as _open_core

    return _open_core(path_or_paths, sysroot=sysroot, solib_search_path=solib_search_path)


def open(paths, *, sysroot=None, solib_search_path=None):  # noqa: A001 - drgn's name for the entry point
    """Open a core (split, host + GPU pair, unified) or code objects alone and return a `Program`.

    See `amddbg.session` and docs/session.md.
    """
    from amddbg.session import open as _open

    return _open(paths, sysroot=sysroot, solib_search_path=solib_search_path)
