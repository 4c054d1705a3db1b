"""Byte layouts of every structure a GPU core holds, as data.

Each layout lists (field, offset, struct format) exactly as the published C definitions place them on
x86-64 LP64 (Linux UAPI `kfd_ioctl.h` 1.15+, ROCdbgapi's note header, ROCr's `amd_queue_t`, HSA's
kernel dispatch packet, the kernel descriptor, glibc's `r_debug`/`link_map`, the kernel's
`elf_prstatus`). Offsets are written out rather than computed so that `tests/core/test_layouts_gcc.py`
can check them against gcc: the compiler, not us, is the reference.

Unpacking follows dbgapi's `note_reader`: an entry shorter than the layout reads as zero-filled, a
longer one has its extra bytes ignored. That is what lets notes with newer/older entry sizes load.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    fmt: str  # a struct format character ("I", "Q", "q", "H") or "<n>s" for a byte array

    @property
    def size(self) -> int:
        return struct.calcsize("<" + self.fmt)


class Layout:
    """A C struct as (name, offset, format) fields; `unpack` returns a dict of ints (bytes for arrays)."""

    def __init__(self, name: str, size: int, fields: list[tuple[str, int, str]]) -> None:
        self.name = name
        self.size = size
        self.fields = [Field(*f) for f in fields]
        self.by_name = {f.name: f for f in self.fields}
        # One precompiled struct for the whole layout: fields sorted by offset with pad bytes between.
        fmt = ["<"]
        pos = 0
        self._order: list[str] = []
        for f in sorted(self.fields, key=lambda f: f.offset):
            if f.offset < pos:
                raise ValueError(f"{name}.{f.name} overlaps")
            if f.offset > pos:
                fmt.append(f"{f.offset - pos}x")
            fmt.append(f.fmt)
            self._order.append(f.name)
            pos = f.offset + f.size
        if pos > size:
            raise ValueError(f"{name} fields exceed its size")
        if size > pos:
            fmt.append(f"{size - pos}x")
        self._struct = struct.Struct("".join(fmt))

    def offset(self, field: str) -> int:
        return self.by_name[field].offset

    def unpack(self, data, offset: int = 0, entry_size: int | None = None) -> dict:
        """Fields of the struct at `data[offset:]`; `entry_size` bytes are the entry (zero-fill if short)."""
        n = self.size if entry_size is None else entry_size
        chunk = bytes(data[offset : offset + min(n, self.size)])
        if len(chunk) < self.size:
            chunk = chunk + bytes(self.size - len(chunk))
        return dict(zip(self._order, self._struct.unpack(chunk), strict=True))

    def pack(self, values: dict | None = None, **kw) -> bytes:
        vals = dict(values or {})
        vals.update(kw)
        unknown = set(vals) - set(self.by_name)
        if unknown:
            raise KeyError(f"{self.name} has no field(s) {sorted(unknown)}")
        args = []
        for name in self._order:
            v = vals.get(name)
            if v is None:
                v = b"" if self.by_name[name].fmt.endswith("s") else 0
            args.append(v)
        return self._struct.pack(*args)


# ROCdbgapi src/os_driver.cpp kfd_note_header_t (follows the u64 note version word in the descriptor).
NOTE_HEADER = Layout(
    "kfd_note_header_t",
    32,
    [
        ("kfd_version_major", 0, "I"),
        ("kfd_version_minor", 4, "I"),
        ("runtime_info_size", 8, "Q"),
        ("agent_entry_count", 16, "I"),
        ("agent_entry_size", 20, "I"),
        ("queue_entry_count", 24, "I"),
        ("queue_entry_size", 28, "I"),
    ],
)

RUNTIME_INFO = Layout("kfd_runtime_info", 16, [("r_debug", 0, "Q"), ("runtime_state", 8, "I"), ("ttmp_setup", 12, "I")])

DEVICE_INFO_ENTRY = Layout(
    "kfd_dbg_device_info_entry",
    120,
    [
        ("exception_status", 0, "Q"),
        ("lds_base", 8, "Q"),
        ("lds_limit", 16, "Q"),
        ("scratch_base", 24, "Q"),
        ("scratch_limit", 32, "Q"),
        ("gpuvm_base", 40, "Q"),
        ("gpuvm_limit", 48, "Q"),
        ("gpu_id", 56, "I"),
        ("location_id", 60, "I"),
        ("vendor_id", 64, "I"),
        ("device_id", 68, "I"),
        ("revision_id", 72, "I"),
        ("subsystem_vendor_id", 76, "I"),
        ("subsystem_device_id", 80, "I"),
        ("fw_version", 84, "I"),
        ("gfx_target_version", 88, "I"),
        ("simd_count", 92, "I"),
        ("max_waves_per_simd", 96, "I"),
        ("array_count", 100, "I"),
        ("simd_arrays_per_engine", 104, "I"),
        ("num_xcc", 108, "I"),
        ("capability", 112, "I"),
        ("debug_prop", 116, "I"),
    ],
)

QUEUE_SNAPSHOT_ENTRY = Layout(
    "kfd_queue_snapshot_entry",
    64,
    [
        ("exception_status", 0, "Q"),
        ("ring_base_address", 8, "Q"),
        ("write_pointer_address", 16, "Q"),
        ("read_pointer_address", 24, "Q"),
        ("ctx_save_restore_address", 32, "Q"),
        ("queue_id", 40, "I"),
        ("gpu_id", 44, "I"),
        ("ring_size", 48, "I"),
        ("queue_type", 52, "I"),
        ("ctx_save_restore_area_size", 56, "I"),
        ("reserved", 60, "I"),
    ],
)

CONTEXT_SAVE_AREA_HEADER = Layout(
    "kfd_context_save_area_header",
    40,
    [
        ("control_stack_offset", 0, "I"),
        ("control_stack_size", 4, "I"),
        ("wave_state_offset", 8, "I"),
        ("wave_state_size", 12, "I"),
        ("debug_offset", 16, "I"),
        ("debug_size", 20, "I"),
        ("err_payload_addr", 24, "Q"),
        ("err_event_id", 32, "I"),
        ("reserved1", 36, "I"),
    ],
)

# ROCR-Runtime inc/amd_hsa_queue.h, the ABI-stable fields dbgapi reads (sizeof 256, align 64).
AMD_QUEUE = Layout(
    "amd_queue_t",
    256,
    [
        ("hsa_queue.type", 0, "I"),
        ("hsa_queue.features", 4, "I"),
        ("hsa_queue.base_address", 8, "Q"),
        ("hsa_queue.doorbell_signal", 16, "Q"),
        ("hsa_queue.size", 24, "I"),
        ("hsa_queue.id", 32, "Q"),
        ("caps", 40, "I"),
        ("write_dispatch_id", 56, "Q"),
        ("group_segment_aperture_base_hi", 64, "I"),
        ("private_segment_aperture_base_hi", 68, "I"),
        ("max_cu_id", 72, "I"),
        ("max_wave_id", 76, "I"),
        ("read_dispatch_id", 128, "Q"),
        ("read_dispatch_id_field_base_byte_offset", 136, "I"),
        ("compute_tmpring_size", 140, "I"),
        ("scratch_resource_descriptor", 144, "16s"),
        ("scratch_backing_memory_location", 160, "Q"),
        ("scratch_backing_memory_byte_size", 168, "Q"),
        ("scratch_wave64_lane_byte_size", 176, "I"),
        ("queue_properties", 180, "I"),
        ("scratch_last_used_index", 184, "Q"),
        ("alt_scratch_backing_memory_location", 216, "Q"),
        ("alt_compute_tmpring_size", 248, "I"),
    ],
)

DISPATCH_PACKET = Layout(
    "hsa_kernel_dispatch_packet_t",
    64,
    [
        ("header", 0, "H"),
        ("setup", 2, "H"),
        ("workgroup_size_x", 4, "H"),
        ("workgroup_size_y", 6, "H"),
        ("workgroup_size_z", 8, "H"),
        ("reserved0", 10, "H"),
        ("grid_size_x", 12, "I"),
        ("grid_size_y", 16, "I"),
        ("grid_size_z", 20, "I"),
        ("private_segment_size", 24, "I"),
        ("group_segment_size", 28, "I"),
        ("kernel_object", 32, "Q"),
        ("kernarg_address", 40, "Q"),
        ("reserved2", 48, "Q"),
        ("completion_signal", 56, "Q"),
    ],
)

KERNEL_DESCRIPTOR = Layout(
    "kernel_descriptor_t",
    64,
    [
        ("group_segment_fixed_size", 0, "I"),
        ("private_segment_fixed_size", 4, "I"),
        ("kernel_code_entry_byte_offset", 16, "q"),
        ("compute_pgm_rsrc3", 44, "I"),
        ("compute_pgm_rsrc1", 48, "I"),
        ("compute_pgm_rsrc2", 52, "I"),
        ("kernel_code_properties", 56, "H"),
    ],
)

R_DEBUG = Layout(
    "r_debug",
    40,
    [
        ("r_version", 0, "i"),
        ("r_map", 8, "Q"),
        ("r_brk", 16, "Q"),
        ("r_state", 24, "I"),
        ("r_ldbase", 32, "Q"),
    ],
)

LINK_MAP = Layout(
    "link_map",
    40,
    [("l_addr", 0, "Q"), ("l_name", 8, "Q"), ("l_ld", 16, "Q"), ("l_next", 24, "Q"), ("l_prev", 32, "Q")],
)

# x86-64 `struct user_regs_struct` (sys/user.h), in order; pr_reg of elf_prstatus.
X86_64_GREGS = (
    "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss "
    "fs_base gs_base ds es fs gs"
).split()

# Linux x86-64 `struct elf_prstatus` (sys/procfs.h), sizeof 336.
PRSTATUS = Layout(
    "elf_prstatus",
    336,
    [
        ("pr_info.si_signo", 0, "i"),
        ("pr_info.si_code", 4, "i"),
        ("pr_info.si_errno", 8, "i"),
        ("pr_cursig", 12, "h"),
        ("pr_sigpend", 16, "Q"),
        ("pr_sighold", 24, "Q"),
        ("pr_pid", 32, "i"),
        ("pr_ppid", 36, "i"),
        ("pr_pgrp", 40, "i"),
        ("pr_sid", 44, "i"),
        ("pr_utime", 48, "16s"),
        ("pr_stime", 64, "16s"),
        ("pr_cutime", 80, "16s"),
        ("pr_cstime", 96, "16s"),
        ("pr_reg", 112, f"{8 * len(X86_64_GREGS)}s"),
        ("pr_fpvalid", 328, "i"),
    ],
)

ALL_LAYOUTS = [
    NOTE_HEADER,
    RUNTIME_INFO,
    DEVICE_INFO_ENTRY,
    QUEUE_SNAPSHOT_ENTRY,
    CONTEXT_SAVE_AREA_HEADER,
    AMD_QUEUE,
    DISPATCH_PACKET,
    KERNEL_DESCRIPTOR,
    R_DEBUG,
    LINK_MAP,
    PRSTATUS,
]
