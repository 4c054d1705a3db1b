"""What kind of file is this, and which code objects does it hold?

A file can be an AMDGPU code object, an offload bundle (plain or compressed), a host ELF that embeds
bundles in `.hip_fatbin` (or raw AMDGPU ELF images in its data, as the HSA runtime does), or a core.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass

from amddbg.codeobj import elf as E
from amddbg.codeobj.bundle import BUNDLE_MAGIC, COMPRESSED_MAGIC, FATBIN_SECTIONS, iter_bundle_entries
from amddbg.codeobj.codeobject import CodeObject
from amddbg.errors import FormatError
from amddbg.textsafe import open_regular


def classify(path: str | os.PathLike) -> str:
    """'code_object', 'core', 'bundle', 'host' or raises FormatError for anything else."""
    name = os.fspath(path)
    try:
        with open_regular(name) as f:
            head = f.read(64)
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", file=name) from None
    if not head:
        raise FormatError("empty file", file=name, offset=0)
    if head.startswith(BUNDLE_MAGIC) or head.startswith(COMPRESSED_MAGIC):
        return "bundle"
    if head.startswith(E.ELF_MAGIC):
        if len(head) < 20:
            raise FormatError("truncated ELF header", file=name, offset=len(head))
        e_type = int.from_bytes(head[16:18], "little")
        machine = int.from_bytes(head[18:20], "little")
        if e_type == E.ET_CORE:
            return "core"
        if machine == E.EM_AMDGPU:
            return "code_object"
        return "host"
    raise FormatError("not an ELF file, offload bundle or core (unrecognised magic)", file=name, offset=0)


@dataclass(frozen=True, slots=True)
class EmbeddedCodeObject:
    container_offset: int  # file offset of the code object's first byte
    size: int
    bundle_entry_id: str | None  # None for raw ELF images found in a host binary
    bundle_index: int | None
    code_object: CodeObject | None  # None for bundle entries that are not AMDGPU ELF (host stubs)
    compressed_bundle_offset: int | None = None  # file offset of the CCOB bundle holding this entry


def _map(path: str):
    f = open_regular(path)  # noqa: SIM115 - the mmap keeps the file alive
    try:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    finally:
        f.close()


def _from_bundle_data(data, base_offset: int, name: str) -> Iterator[EmbeddedCodeObject]:
    for entry in iter_bundle_entries(data, name):
        co = None
        if entry.compressed:
            where = base_offset + entry.bundle_offset
            offset, label = entry.offset, f"{name}[compressed bundle at {where:#x}]#offset={entry.offset}"
        else:
            where = None
            offset = base_offset + entry.offset
            label = f"{name}#offset={offset}&size={entry.size}"
        if entry.size >= 4 and bytes(entry.data[:4]) == E.ELF_MAGIC:
            co = CodeObject.from_bytes(entry.data, label)
        yield EmbeddedCodeObject(offset, entry.size, entry.entry_id, entry.bundle_index, co, where)


def embedded_code_objects(path: str | os.PathLike) -> list[EmbeddedCodeObject]:
    """Every code object in a bundle file or a host ELF (its fat-binary sections)."""
    name = os.fspath(path)
    kind = classify(name)
    if kind == "bundle":
        return list(_from_bundle_data(memoryview(_map(name)), 0, name))
    if kind != "host":
        raise FormatError(f"expected a bundle or host binary, found a {kind.replace('_', ' ')}", file=name)
    host = E.ElfFile.from_path(name)
    out: list[EmbeddedCodeObject] = []
    for sec in host.sections:
        if sec.name in FATBIN_SECTIONS and sec.type != E.SHT_NOBITS and sec.size:
            out.extend(_from_bundle_data(host.section_view(sec), sec.offset, name))
    return out
