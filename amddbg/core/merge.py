"""Merge a host core and a split GPU core into one unified core, like ROCgdb's `coremerge`.

All notes of both files are kept (host notes first). PT_LOAD segments are merged: when both files have a
segment at the same `p_vaddr` with the same `p_memsz` and one holds no data (`p_filesz == 0`, the kernel's
stand-in for a VM_IO GPU mapping), the one with data wins. Other overlaps are reported. The output header
is the host's (x86-64 ET_CORE); all-zero 4 KiB blocks are left as holes (sparse output).
"""

from __future__ import annotations

import os
import stat
import tempfile

from amddbg.core.elffile import PT_LOAD, ElfCore
from amddbg.core.writer.elfwrite import OutSegment, write_core
from amddbg.errors import AmddbgError, FormatError, UsageError
from amddbg.textsafe import safe


def check_output(out_path: str, inputs: tuple[str, ...], force: bool) -> None:
    """One-line errors for an output that cannot be written as a regular file, before any work."""
    shown = safe(out_path)
    folder = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(folder):
        raise UsageError(f"{shown}: the output folder {safe(folder)} does not exist")
    if os.path.lexists(out_path):
        st = os.stat(out_path) if os.path.exists(out_path) else os.lstat(out_path)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{shown}: is a directory; give a file name for the unified core")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{shown}: is not a regular file (a device, FIFO or socket); "
                             "the unified core must be written to a file")
        if not force:
            raise UsageError(f"{shown} exists (use -f to overwrite)")
        for p in inputs:
            if os.path.exists(p) and os.path.samefile(p, out_path):
                raise UsageError("the output would overwrite an input file")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{shown}: the output folder {safe(folder)} is not writable")


def merge_cores(host_path: str, gpu_path: str, out_path: str, *, force: bool = False) -> list[str]:
    """Write the unified core; return warnings. Refuses to overwrite an existing file unless `force`.

    The core is written to a temporary file in the output's folder and renamed over `out_path` only
    once complete: a failed merge (bad input, full disk) leaves any previous output untouched.
    """
    check_output(out_path, (host_path, gpu_path), force)
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
    folder = os.path.dirname(os.path.abspath(out_path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(out_path) + ".", suffix=".part")
    os.close(fd)
    try:
        # mkstemp makes the file 0600; give it the mode a plain create would (or the old output's)
        mask = os.umask(0)
        os.umask(mask)
        mode = stat.S_IMODE(os.stat(out_path).st_mode) if os.path.isfile(out_path) else 0o666 & ~mask
        os.chmod(tmp, mode)
        write_core(tmp, style="linux", notes=notes, segments=out)
        os.replace(tmp, out_path)
    except OSError as exc:
        raise AmddbgError(f"cannot write the unified core: {exc.strerror or exc}", file=safe(out_path)) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return warnings
