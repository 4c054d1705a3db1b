"""Code objects loaded in the process: the runtime's `_amdgpu_r_debug` link map and code object URIs.

`kfd_runtime_info.r_debug` is the host address of ROCr's `struct r_debug`; its `r_map` list holds one
glibc `link_map` per loaded code object with `l_addr` the load delta and `l_name` a URI
(grammar: ROCR-Runtime `hsa_ven_amd_loader.h`): ``file://PATH[#offset=N&size=N]`` (path %-encoded) or
``memory://PID#offset=ADDR&size=N`` (bytes in the process's memory, hence in the core).
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass

from amddbg.core.layouts import LINK_MAP, R_DEBUG
from amddbg.core.memory import SegmentMap
from amddbg.core.model import CodeObjectRef
from amddbg.errors import FormatError, Unavailable

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


class CodeObjectLoader:
    """Reads a code object's bytes for its URI: memory:// from the core, file:// from disk."""

    def __init__(self, mem: SegmentMap, core_dir: str, sysroot: str | None, solib_search_path: list[str]):
        self.mem = mem
        self.core_dir = core_dir
        self.sysroot = sysroot
        self.search = solib_search_path

    def candidates(self, path: str) -> list[str]:
        out = []
        if self.sysroot:
            out.append(os.path.join(self.sysroot, path.lstrip("/")))
        base = os.path.basename(path)
        for d in self.search:
            out.append(os.path.join(d, base))
        out.append(path)
        out.append(os.path.join(self.core_dir, base))
        return out

    def __call__(self, ref: CodeObjectRef) -> bytes:
        uri = parse_uri(ref.uri)
        if uri.scheme == "memory":
            return self.mem.read(uri.offset, uri.size or 0)
        for cand in self.candidates(uri.path):
            if os.path.isfile(cand):
                with open(cand, "rb") as f:
                    f.seek(uri.offset)
                    data = f.read() if uri.size is None else f.read(uri.size)
                if uri.size is not None and len(data) != uri.size:
                    raise FormatError(f"{ref.uri}: file holds {len(data)} of {uri.size} bytes", file=cand)
                return data
        raise Unavailable(
            "file",
            uri.offset,
            uri.size or 0,
            f"{uri.path} not found (tried sysroot, solib-search-path, the core's directory)",
        )


def code_objects(
    mem: SegmentMap, r_debug_address: int, loader: CodeObjectLoader, warnings: list[str]
) -> tuple[dict | None, list[CodeObjectRef]]:
    rd, entries = walk_link_map(mem, r_debug_address, warnings)
    refs = [CodeObjectRef(uri, l_addr, node, loader) for node, l_addr, uri in entries if uri]
    return rd, refs
