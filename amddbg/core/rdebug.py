"""Code objects loaded in the process: the runtime's `_amdgpu_r_debug` link map and code object URIs.

`kfd_runtime_info.r_debug` is the host address of ROCr's `struct r_debug`; its `r_map` list holds one
glibc `link_map` per loaded code object with `l_addr` the load delta and `l_name` a URI
(grammar: ROCR-Runtime `hsa_ven_amd_loader.h`): ``file://PATH[#offset=N&size=N]`` (path %-encoded) or
``memory://PID#offset=ADDR&size=N`` (bytes in the process's memory, hence in the core).
"""

from __future__ import annotations

import mmap
import os
import urllib.parse
from dataclasses import dataclass

from amddbg.core.layouts import LINK_MAP, R_DEBUG
from amddbg.core.memory import SegmentMap
from amddbg.core.model import CodeObjectRef
from amddbg.errors import FormatError, Unavailable
from amddbg.textsafe import open_regular, safe

RT_CONSISTENT = 0
MAX_LINK_MAP_ENTRIES = 100_000


@dataclass(frozen=True)
class CodeObjectUri:
    scheme: str  # "file" or "memory"
    path: str  # file path (decoded) or the process id for memory://
    offset: int
    size: int | None

    @property
    def pid(self) -> int | None:
        return int(self.path) if self.scheme == "memory" and self.path.isdigit() else None


def _number(text: str) -> int:
    text = text.strip()
    if text.lower().startswith("0x"):
        return int(text, 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8)
    return int(text, 10)


def parse_uri(uri: str) -> CodeObjectUri:
    """Parse a code object URI; FormatError on anything outside the grammar."""
    for scheme in ("file", "memory"):
        prefix = scheme + "://"
        if uri.startswith(prefix):
            break
    else:
        raise FormatError(f"code object URI {uri!r}: unknown scheme (want file:// or memory://)")
    rest = uri[len(prefix) :]
    params: dict[str, int] = {}
    cut = min((i for i in (rest.find("#"), rest.find("?")) if i >= 0), default=-1)
    if cut >= 0:
        rest, query = rest[:cut], rest[cut + 1 :]
        for part in query.split("&"):
            if not part:
                continue
            key, _, value = part.partition("=")
            try:
                params[key] = _number(value)
            except ValueError:
                raise FormatError(f"code object URI {uri!r}: bad number in {part!r}") from None
    path = urllib.parse.unquote(rest)
    if scheme == "memory" and ("offset" not in params or "size" not in params):
        raise FormatError(f"code object URI {uri!r}: memory URIs need offset and size")
    return CodeObjectUri(scheme, path, params.get("offset", 0), params.get("size"))


def encode_file_uri(path: str, offset: int | None = None, size: int | None = None) -> str:
    """file:// URI with ROCr's encoding (every char outside [a-zA-Z0-9/_.~-] as %XX)."""
    enc = urllib.parse.quote(path, safe="/_.~-")
    uri = "file://" + enc
    if offset is not None or size is not None:
        uri += f"#offset={offset or 0:#x}"
        if size is not None:
            uri += f"&size={size}"
    return uri


def memory_uri(pid: int, address: int, size: int) -> str:
    """memory:// URI as ROCr's GetUriFromMemoryAddress writes it."""
    return f"memory://{pid}#offset={address:#x}&size={size}"


def walk_link_map(mem: SegmentMap, r_debug_address: int, warnings: list[str]) -> tuple[dict | None, list]:
    """(r_debug fields, [(link_map address, l_addr, uri)]) or (None, []) when r_debug is unavailable."""
    if not r_debug_address:
        warnings.append("runtime info has no r_debug address: code objects unknown")
        return None, []
    try:
        rd = R_DEBUG.unpack(mem.read(r_debug_address, R_DEBUG.size))
    except Unavailable as exc:
        warnings.append(f"_amdgpu_r_debug at {r_debug_address:#x} unavailable ({exc.why}): code objects unknown")
        return None, []
    if rd["r_state"] != RT_CONSISTENT:
        warnings.append(f"_amdgpu_r_debug.r_state is {rd['r_state']} (not RT_CONSISTENT): list may be partial")
    out = []
    seen = set()
    node = rd["r_map"]
    while node and len(out) < MAX_LINK_MAP_ENTRIES:
        if node in seen:
            warnings.append(f"link map loops at {node:#x}")
            break
        seen.add(node)
        try:
            lm = LINK_MAP.unpack(mem.read(node, LINK_MAP.size))
        except Unavailable as exc:
            warnings.append(f"link_map at {node:#x} unavailable ({exc.why})")
            break
        try:
            name = mem.cstring(lm["l_name"]) if lm["l_name"] else ""
        except Unavailable as exc:
            warnings.append(f"link_map at {node:#x}: l_name unavailable ({exc.why})")
            name = ""
        out.append((node, lm["l_addr"], name))
        node = lm["l_next"]
    return rd, out


# The largest real code object is a few hundred MB (rocsparse's gfx90a object: 180 MB). A memory://
# URI naming more is refused before any byte is copied out of the core.
MAX_MEMORY_CODE_OBJECT = 1 << 30
_ELF_MAGIC = b"\x7fELF"


def _inside(root: str, path: str) -> bool:
    """Whether `path` (already resolved) lies inside `root` (already resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class CodeObjectLoader:
    """Reads a code object's bytes for its URI: memory:// from the core, file:// from disk.

    A core is input, so the paths it names are hostile until proven otherwise:

    * with a sysroot, a file:// path resolves inside the sysroot only: symlinks and `..` are resolved
      first and a result outside the sysroot is refused; there is no fallback to the host path;
    * without a sysroot, host files are read where the core says, and each one read is reported
      (`host_files_read`, and a warning) so the user knows what was opened;
    * the ELF header is checked before anything else, and file bytes are mapped, never read whole.
    """

    def __init__(self, mem: SegmentMap, core_dir: str, sysroot: str | None, solib_search_path: list[str],
                 warnings: list[str] | None = None):
        self.mem = mem
        self.core_dir = core_dir
        self.sysroot = os.path.realpath(sysroot) if sysroot else None
        self.search = solib_search_path
        self.warnings = warnings if warnings is not None else []
        self.host_files_read: list[str] = []

    def candidates(self, path: str) -> list[str]:
        """Files to try for a file:// path, in order (with a sysroot: only ones inside it)."""
        out = []
        base = os.path.basename(path)
        if self.sysroot:
            inside = os.path.realpath(os.path.join(self.sysroot, path.lstrip("/")))
            if _inside(self.sysroot, inside):
                out.append(inside)
            else:
                self.warnings.append(f"code object path {safe(path)} leaves the sysroot; not read")
        if base not in ("", ".", ".."):
            out += [os.path.join(d, base) for d in self.search]
        if not self.sysroot:
            out.append(path)
            if base not in ("", ".", ".."):
                out.append(os.path.join(self.core_dir, base))
        return out

    def __call__(self, ref: CodeObjectRef):
        uri = parse_uri(ref.uri)
        if uri.scheme == "memory":
            size = uri.size or 0
            if size > MAX_MEMORY_CODE_OBJECT:
                raise FormatError(f"{safe(ref.uri)}: size {size} is larger than any code object "
                                  f"(limit {MAX_MEMORY_CODE_OBJECT >> 20} MiB)")
            head = self.mem.read(uri.offset, min(size, 4))
            if head != _ELF_MAGIC[: len(head)] or size < 4:
                raise FormatError(f"{safe(ref.uri)}: the bytes there are not an ELF file (bad magic)")
            return self.mem.read(uri.offset, size)
        for cand in self.candidates(uri.path):
            if os.path.isfile(cand):
                return self._map_file(ref, uri, cand)
        where = ("the sysroot, solib-search-path" if self.sysroot
                 else "the path, solib-search-path, the core's directory")
        raise Unavailable("file", uri.offset, uri.size or 0, f"{safe(uri.path)} not found (tried {where})")

    def _map_file(self, ref: CodeObjectRef, uri: CodeObjectUri, cand: str):
        with open_regular(cand, what="code object") as f:
            file_size = os.fstat(f.fileno()).st_size
            size = file_size - uri.offset if uri.size is None else uri.size
            if uri.offset > file_size or size <= 0 or uri.offset + size > file_size:
                raise FormatError(f"{safe(ref.uri)}: range {uri.offset:#x}+{size} is outside the file",
                                  file=safe(cand))
            f.seek(uri.offset)
            if f.read(4) != _ELF_MAGIC:
                raise FormatError(f"{safe(ref.uri)}: not an ELF file (bad magic)", file=safe(cand),
                                  offset=uri.offset)
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if uri.offset == 0:
            from amddbg.codeobj.elf import check_debug_sections

            check_debug_sections(cand)  # no gigabyte or sparse-hole DWARF sections behind the waves' source
        if not self.sysroot and not any(_inside(os.path.realpath(d), os.path.realpath(cand)) for d in self.search):
            self.host_files_read.append(cand)
            self.warnings.append(f"code object {safe(ref.uri)} read from host file {safe(cand)} "
                                 "(named by the core; use --sysroot to confine such paths)")
        return memoryview(data)[uri.offset : uri.offset + size]


def code_objects(
    mem: SegmentMap, r_debug_address: int, loader: CodeObjectLoader, warnings: list[str]
) -> tuple[dict | None, list[CodeObjectRef]]:
    rd, entries = walk_link_map(mem, r_debug_address, warnings)
    refs = [CodeObjectRef(uri, l_addr, node, loader) for node, l_addr, uri in entries if uri]
    return rd, refs
