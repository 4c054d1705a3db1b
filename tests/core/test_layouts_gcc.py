"""The note and memory structure layouts are checked by a compiler: a C program holding the published
definitions (Linux UAPI kfd_ioctl.h 1.15+ as quoted in shared/reference/core-file-format.md, ROCdbgapi's
note header, ROCr's amd_queue_t, HSA's dispatch packet, glibc's <link.h>, the kernel's elf_prstatus from
<sys/procfs.h>) prints sizeof/offsetof of every field we declare; they must match ours exactly."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from amddbg.core.layouts import ALL_LAYOUTS, X86_64_GREGS

GCC = shutil.which("gcc") or shutil.which("cc")
DEFS = (Path(__file__).parent / "cgen" / "gen_core.c").read_text()
# Reuse the struct definitions of the independent generator (everything before its own code), but with
# the mainline 120-byte kfd_dbg_device_info_entry (no capability2/pad).
DEFS = DEFS[: DEFS.index("/* ---- process image")].replace(
    "  __u32 capability2; __u32 pad; /* rocm-systems dbgapi copy: 128 bytes */\n", ""
)
C_TYPES = {
    "kfd_note_header_t": "struct kfd_note_header_t",
    "kfd_runtime_info": "struct kfd_runtime_info",
    "kfd_dbg_device_info_entry": "struct kfd_dbg_device_info_entry",
    "kfd_queue_snapshot_entry": "struct kfd_queue_snapshot_entry",
    "kfd_context_save_area_header": "struct kfd_context_save_area_header",
    "amd_queue_t": "amd_queue_t",
    "hsa_kernel_dispatch_packet_t": "hsa_kernel_dispatch_packet_t",
    "kernel_descriptor_t": "struct kd",
    "r_debug": "struct r_debug",
    "link_map": "struct link_map",
    "elf_prstatus": "struct elf_prstatus",
}
C_FIELD = {
    ("kfd_context_save_area_header", f): "wave_state." + f
    for f in ("control_stack_offset", "control_stack_size", "wave_state_offset", "wave_state_size")
}


def test_layouts_match_gcc(tmp_path):
    if GCC is None:
        pytest.skip("gcc not found: struct layouts cannot be checked by a compiler")
    lines = ["#include <sys/procfs.h>", "#include <sys/user.h>", DEFS, "int main(void) {"]
    for lay in ALL_LAYOUTS:
        t = C_TYPES[lay.name]
        lines.append(f'printf("{lay.name} sizeof %zu\\n", sizeof({t}));')
        for f in lay.fields:
            cf = C_FIELD.get((lay.name, f.name), f.name)
            lines.append(f'printf("{lay.name} {f.name} %zu %zu\\n", offsetof({t}, {cf}), sizeof((({t}*)0)->{cf}));')
    for r in X86_64_GREGS:
        lines.append(f'printf("user_regs_struct {r} %zu\\n", offsetof(struct user_regs_struct, {r}));')
    lines.append('printf("misc elf_gregset_t %zu\\n", sizeof(elf_gregset_t));')
    lines.append("return 0; }")
    src = tmp_path / "layouts.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layouts"
    subprocess.run([GCC, "-std=gnu11", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    got = {tuple(line.split()[:2]): [int(x) for x in line.split()[2:]] for line in out}
    checked = 0
    for lay in ALL_LAYOUTS:
        assert got[(lay.name, "sizeof")] == [lay.size], lay.name
        for f in lay.fields:
            assert got[(lay.name, f.name)] == [f.offset, f.size], f"{lay.name}.{f.name}"
            checked += 1
    for i, r in enumerate(X86_64_GREGS):
        assert got[("user_regs_struct", r)] == [8 * i]
    assert got[("misc", "elf_gregset_t")] == [8 * len(X86_64_GREGS)]
    assert checked > 100
