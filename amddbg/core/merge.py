"""Merge a host core and a split GPU core into one unified core, like ROCgdb's `coremerge`.

All notes of both files are kept (host notes first). PT_LOAD segments are merged: when both files have a
segment at the same `p_vaddr` with the same `p_memsz` and one holds no data (`p_filesz == 0`, the kernel's
stand-in for a VM_IO GPU mapping), the one with data wins. Other overlaps are reported. The output header
is the host's (x86-64 ET_CORE); all-zero 4 KiB blocks are left as holes (sparse output).
"""

from __future__ import annotations

import os

from amddbg.core.elffile import PT_LOAD, ElfCore
from amddbg.core.writer.elfwrite import OutSegment, write_core
from amddbg.errors import FormatError, UsageError


def merge_cores(host_path: str, gpu_path: str, out_path: str, *, force: bool = False) -> list[str]:
    """Write the unified core; return warnings. Refuses to overwrite an existing file unless `force`."""
    if os.path.exists(out_path) and not force:
        raise UsageError(f"{out_path} exists (use -f to overwrite)")
    for p in (host_path, gpu_path):
        if os.path.exists(out_path) and os.path.samefile(p, out_path):
            raise UsageError("the output would overwrite an input file")
    host, gpu = ElfCore(host_path), ElfCore(gpu_path)
    if host.is_gpu_core and not gpu.is_gpu_core:
        host, gpu = gpu, host
    if host.is_gpu_core:
        raise FormatError("both inputs are GPU cores; need a host core and a GPU core", file=host.path)
    if not gpu.is_gpu_core:
        raise FormatError("not an AMDGPU (EM_AMDGPU) core", file=gpu.path)
    warnings = list(host.warnings) + list(gpu.warnings)
    notes = [(n.name, n.type, bytes(n.desc)) for n in host.notes + gpu.notes]
    segs: list[tuple[int, int, int, ElfCore, int, int]] = []  # vaddr, memsz, filesz, core, offset, flags
    for core in (host, gpu):
        for ph in core.phdrs:
            if ph.p_type == PT_LOAD:
                avail = max(0, min(ph.p_filesz, core.file_size - ph.p_offset))
                segs.append((ph.p_vaddr, ph.p_memsz, avail, core, ph.p_offset, ph.p_flags))
    segs.sort(key=lambda s: (s[0], -s[2]))
    kept: list = []
    for s in segs:
        if kept and s[0] < kept[-1][0] + kept[-1][1]:
            prev = kept[-1]
            if s[0] == prev[0] and s[1] == prev[1] and (prev[2] == 0 or s[2] == 0):
                if s[2] > prev[2]:
                    kept[-1] = s
                continue
            warnings.append(f"overlapping segments at {s[0]:#x} and {prev[0]:#x}; the second is dropped")
            continue
        kept.append(s)
    out = []
    for vaddr, memsz, filesz, core, off, flags in kept:
        # host segments keep their PF_* flags; the GPU core's SHF-style flags become PF_R|PF_W
        pf = flags if core is host else 6
        out.append(OutSegment(vaddr, None, memsz, filesz, pf, src=(core.path, off) if filesz else None))
    write_core(out_path, style="linux", notes=notes, segments=out)
    return warnings
