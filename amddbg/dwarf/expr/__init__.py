"""DWARF expressions for AMDGPU: decoding (DWARF 5 + `DW_OP_LLVM_*` in both vendor encodings), printing, and
evaluation with the heterogeneous-debugging extension's model (values and location descriptions, address
spaces, lanes). The evaluator asks a `Context` for registers and memory; it owns no target.
"""

from amddbg.dwarf.expr.aspace import AddressSpaceError, Apertures, convert_address, dwarf_aspace, xderef_map
from amddbg.dwarf.expr.context import BaseContext, CallTarget, Context, StaticContext, TargetContext
from amddbg.dwarf.expr.evaluator import (
    Evaluator,
    LaneResults,
    evaluate,
    evaluate_lanes,
    read_bits,
    read_bytes,
    read_value,
)
from amddbg.dwarf.expr.lanes import LanePC, LaneState, active_mask, lane_pcs
from amddbg.dwarf.expr.location import (
    GENERIC_TYPE,
    BaseType,
    Composite,
    EvaluationError,
    Implicit,
    ImplicitPointer,
    Location,
    Memory,
    Part,
    Register,
    Single,
    Undefined,
    UndefinedLocation,
    Value,
)
from amddbg.dwarf.expr.ops import Encoding, Op, decode, encode, encoding_for
from amddbg.dwarf.expr.printer import format_op, format_ops
from amddbg.dwarf.expr.regs import RegisterInfo, dwarf_register, register_info, register_name

__all__ = [
    "GENERIC_TYPE", "AddressSpaceError", "Apertures", "BaseContext", "BaseType", "CallTarget", "Composite",
    "Context", "Encoding", "EvaluationError", "Evaluator", "Implicit", "ImplicitPointer", "LanePC",
    "LaneResults", "LaneState", "Location", "Memory", "Op", "Part", "Register", "RegisterInfo", "Single",
    "StaticContext", "TargetContext", "Undefined", "UndefinedLocation", "Value", "active_mask",
    "convert_address", "decode",
    "dwarf_aspace", "dwarf_register", "encode", "encoding_for", "evaluate", "evaluate_lanes", "format_op",
    "format_ops", "lane_pcs", "read_bits", "read_bytes", "read_value", "register_info", "register_name",
    "producer_options", "xderef_map",
]


def producer_options(producer: str | None, augmentation: str | None = None) -> dict:
    """Evaluator options for a CU: the vendor-op encoding, the xderef address-space numbering, and whether
    `DW_OP_regx VGPRn` means the focused lane's dword (producers without the heterogeneous extension never
    select a lane themselves: upstream clang emits the whole-wave register for a per-lane variable), and
    whether `DW_OP_litN, DW_OP_swap, DW_OP_xderef` is upstream LLVM's address-space annotation (a location in
    space N) rather than a DWARF dereference, and whether that annotation on a value computed from registers
    is the vestige of a declare record promoted to a register (`promoted`: the variable is the value).

    Pass as ``Evaluator(ctx, **producer_options(producer, augmentation))``.
    """
    upstream = not augmentation
    return {
        "encoding": encoding_for(producer, augmentation),
        "xderef_spaces": xderef_map(producer),
        "lane_slice_vector_registers": upstream,
        "xderef_is_address_space": upstream,
        "promoted_values": upstream,
    }
