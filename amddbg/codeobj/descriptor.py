"""Kernel descriptors (`<kernel>.kd`, 64 bytes) decoded field by field.

Layout and bit fields per the manual's "Kernel Descriptor" tables (and LLVM's
AMDHSAKernelDescriptor.h): several bits change meaning between generations (e.g. rsrc1 bit 21 is
ENABLE_DX10_CLAMP up to GFX11 and ENABLE_WG_RR_EN from GFX12), so every field names the generations
it applies to and decoding picks by the processor's family.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from amddbg.codeobj.processors import Processor
from amddbg.errors import FormatError

KERNEL_DESCRIPTOR_SIZE = 64
_KD = struct.Struct("<IIII q 20s IIIHH 4s")

_GEN = {"GFX6": 6.0, "GFX7": 7.0, "GFX8": 8.0, "GFX9": 9.0, "GFX10.1": 10.1, "GFX10.3": 10.3,
        "GFX11": 11.0, "GFX12": 12.0, "GFX12.5": 12.5}


def _gen(processor: Processor | None) -> float:
    return _GEN.get(processor.family, 9.0) if processor else 9.0


def _has_accum_offset(processor: Processor | None) -> bool:
    return bool(processor) and processor.family == "GFX9" and processor.tgsplit


# (name, shift, width, applies(gen, processor))
_ALL = lambda g, p: True  # noqa: E731
_LE = lambda hi: lambda g, p: g <= hi  # noqa: E731
_GE = lambda lo: lambda g, p: g >= lo  # noqa: E731
_RANGE = lambda lo, hi: lambda g, p: lo <= g <= hi  # noqa: E731

RSRC1 = (
    ("granulated_workitem_vgpr_count", 0, 6, _ALL),
    ("granulated_wavefront_sgpr_count", 6, 4, _ALL),
    ("priority", 10, 2, _ALL),
    ("float_round_mode_32", 12, 2, _ALL),
    ("float_round_mode_16_64", 14, 2, _ALL),
    ("float_denorm_mode_32", 16, 2, _ALL),
    ("float_denorm_mode_16_64", 18, 2, _ALL),
    ("priv", 20, 1, _ALL),
    ("enable_dx10_clamp", 21, 1, _LE(11)),
    ("enable_wg_rr_en", 21, 1, _GE(12)),
    ("debug_mode", 22, 1, _ALL),
    ("enable_ieee_mode", 23, 1, _LE(11)),
    ("disable_perf", 23, 1, _GE(12)),
    ("bulky", 24, 1, _ALL),
    ("cdbg_user", 25, 1, _ALL),
    ("fp16_ovfl", 26, 1, _GE(9)),
    ("flat_scratch_is_nv", 27, 1, _GE(12.5)),
    ("wgp_mode", 29, 1, _GE(10)),
    ("mem_ordered", 30, 1, _GE(10)),
    ("fwd_progress", 31, 1, _GE(10)),
)

RSRC2 = (
    ("enable_private_segment", 0, 1, _ALL),
    ("user_sgpr_count", 1, 5, _LE(12.0)),
    ("user_sgpr_count", 1, 6, _GE(12.5)),
    ("enable_trap_handler", 6, 1, _LE(11)),
    ("enable_dynamic_vgpr", 6, 1, _RANGE(12.0, 12.0)),
    ("enable_sgpr_workgroup_id_x", 7, 1, _ALL),
    ("enable_sgpr_workgroup_id_y", 8, 1, _ALL),
    ("enable_sgpr_workgroup_id_z", 9, 1, _ALL),
    ("enable_sgpr_workgroup_info", 10, 1, _ALL),
    ("enable_vgpr_workitem_id", 11, 2, _ALL),
    ("enable_exception_address_watch", 13, 1, _ALL),
    ("enable_exception_memory", 14, 1, _ALL),
    ("granulated_lds_size", 15, 9, _ALL),
    ("enable_exception_ieee_754_fp_invalid_operation", 24, 1, _ALL),
    ("enable_exception_fp_denormal_source", 25, 1, _ALL),
    ("enable_exception_ieee_754_fp_division_by_zero", 26, 1, _ALL),
    ("enable_exception_ieee_754_fp_overflow", 27, 1, _ALL),
    ("enable_exception_ieee_754_fp_underflow", 28, 1, _ALL),
    ("enable_exception_ieee_754_fp_inexact", 29, 1, _ALL),
    ("enable_exception_int_divide_by_zero", 30, 1, _ALL),
)

RSRC3_GFX90A = (
    ("accum_offset", 0, 6, _ALL),
    ("tg_split", 16, 1, _ALL),
)

RSRC3_GFX10_PLUS = (
    ("shared_vgpr_count", 0, 4, _RANGE(10, 11)),
    ("inst_pref_size", 4, 6, _RANGE(11, 11)),
    ("trap_on_start", 10, 1, _RANGE(11, 11)),
    ("trap_on_end", 11, 1, _RANGE(11, 11)),
    ("inst_pref_size", 4, 8, _GE(12)),
    ("glg_en", 13, 1, _GE(12)),
    ("named_bar_cnt", 14, 3, _GE(12.5)),
    ("enable_dynamic_vgpr", 17, 1, _GE(12.5)),
    ("tcp_split", 18, 3, _GE(12.5)),
    ("enable_didt_throttle", 21, 1, _GE(12.5)),
    ("image_op", 31, 1, _GE(11)),
)

KERNEL_CODE_PROPERTIES = (
    ("enable_sgpr_private_segment_buffer", 0, 1, _ALL),
    ("enable_sgpr_dispatch_ptr", 1, 1, _ALL),
    ("enable_sgpr_queue_ptr", 2, 1, _ALL),
    ("enable_sgpr_kernarg_segment_ptr", 3, 1, _ALL),
    ("enable_sgpr_dispatch_id", 4, 1, _ALL),
    ("enable_sgpr_flat_scratch_init", 5, 1, _ALL),
    ("enable_sgpr_private_segment_size", 6, 1, _ALL),
    ("enable_wavefront_size32", 10, 1, _GE(10)),
    ("uses_dynamic_stack", 11, 1, _ALL),
)

KERNARG_PRELOAD = (
    ("length", 0, 7, _ALL),
    ("offset", 7, 9, _ALL),
)


def _fields(value: int, table, gen: float, proc: Processor | None) -> dict[str, Any]:
    out: dict[str, Any] = {"raw": value}
    for name, shift, width, applies in table:
        if applies(gen, proc):
            out[name] = (value >> shift) & ((1 << width) - 1)
    return out


@dataclass(frozen=True, slots=True)
class KernelDescriptor:
    address: int  # where the descriptor is (the .kd symbol value)
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    compute_pgm_rsrc1: dict[str, Any]
    compute_pgm_rsrc2: dict[str, Any]
    compute_pgm_rsrc3: dict[str, Any]
    kernel_code_properties: dict[str, Any]
    kernarg_preload: dict[str, Any]

    @property
    def entry_address(self) -> int:
        """Address of the kernel's first instruction (descriptor address + byte offset)."""
        return self.address + self.kernel_code_entry_byte_offset

    @property
    def wavefront_size(self) -> int:
        return 32 if self.kernel_code_properties.get("enable_wavefront_size32") else 64

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "group_segment_fixed_size": self.group_segment_fixed_size,
            "private_segment_fixed_size": self.private_segment_fixed_size,
            "kernarg_size": self.kernarg_size,
            "kernel_code_entry_byte_offset": self.kernel_code_entry_byte_offset,
            "entry_address": self.entry_address,
            "compute_pgm_rsrc1": self.compute_pgm_rsrc1,
            "compute_pgm_rsrc2": self.compute_pgm_rsrc2,
            "compute_pgm_rsrc3": self.compute_pgm_rsrc3,
            "kernel_code_properties": self.kernel_code_properties,
            "kernarg_preload": self.kernarg_preload,
            "wavefront_size": self.wavefront_size,
        }


def decode_kernel_descriptor(data: bytes, address: int, processor: Processor | None, *, file: str = "<memory>",
                             offset: int = 0) -> KernelDescriptor:
    if len(data) < KERNEL_DESCRIPTOR_SIZE:
        raise FormatError(f"kernel descriptor is {len(data)} bytes, expected 64", file=file, offset=offset)
    (group, private, kernarg, _r0, entry_off, _r1, rsrc3, rsrc1, rsrc2, props, preload,
     _r3) = _KD.unpack_from(data, 0)
    gen = _gen(processor)
    if _has_accum_offset(processor):
        rsrc3_fields = _fields(rsrc3, RSRC3_GFX90A, gen, processor)
    elif gen >= 10:
        rsrc3_fields = _fields(rsrc3, RSRC3_GFX10_PLUS, gen, processor)
    else:
        rsrc3_fields = {"raw": rsrc3}
    return KernelDescriptor(
        address, group, private, kernarg, entry_off,
        _fields(rsrc1, RSRC1, gen, processor),
        _fields(rsrc2, RSRC2, gen, processor),
        rsrc3_fields,
        _fields(props, KERNEL_CODE_PROPERTIES, gen, processor),
        _fields(preload, KERNARG_PRELOAD, gen, processor),
    )
