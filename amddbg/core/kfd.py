"""The `NT_AMDGPU_KFD_CORE_STATE` note: KFD's view of the runtime, the agents and the queues.

Descriptor layout as every producer writes it (ROCr, ROCdbgapi): a u64 note-format version (1),
then `kfd_note_header_t`, `kfd_runtime_info`, the agent entries and the queue entries, each block
sized by the header (entries may be longer or shorter than our structs: read like dbgapi's
`note_reader`, zero-filling short entries and skipping extra bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.core.layouts import DEVICE_INFO_ENTRY, NOTE_HEADER, QUEUE_SNAPSHOT_ENTRY, RUNTIME_INFO
from amddbg.errors import FormatError

NT_AMDGPU_KFD_CORE_STATE = 33
NOTE_NAME = "AMDGPU"
NOTE_FORMAT_VERSION = 1

# dbgapi's check_version: [1.13, 2.0)
KFD_VERSION_MIN = (1, 13)
KFD_VERSION_MAX_EXCLUSIVE = (2, 0)

RUNTIME_STATES = {0: "disabled", 1: "enabled", 2: "enabled_busy", 3: "enabled_error"}

QUEUE_TYPES = {0: "compute", 1: "sdma", 2: "compute_aql", 3: "sdma_xgmi", 4: "sdma_by_eng_id"}
QUEUE_TYPE_COMPUTE_AQL = 2
KFD_DBG_QUEUE_ERROR_MASK = 1 << 30
KFD_DBG_QUEUE_INVALID_MASK = 1 << 31

# enum kfd_dbg_trap_exception_code (kfd_ioctl.h, identical in 1.15 and 1.16+)
EXCEPTION_CODES = {
    1: "EC_QUEUE_WAVE_ABORT",
    2: "EC_QUEUE_WAVE_TRAP",
    3: "EC_QUEUE_WAVE_MATH_ERROR",
    4: "EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION",
    5: "EC_QUEUE_WAVE_MEMORY_VIOLATION",
    6: "EC_QUEUE_WAVE_APERTURE_VIOLATION",
    16: "EC_QUEUE_PACKET_DISPATCH_DIM_INVALID",
    17: "EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID",
    18: "EC_QUEUE_PACKET_DISPATCH_CODE_INVALID",
    19: "EC_QUEUE_PACKET_RESERVED",
    20: "EC_QUEUE_PACKET_UNSUPPORTED",
    21: "EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID",
    22: "EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID",
    23: "EC_QUEUE_PACKET_VENDOR_UNSUPPORTED",
    30: "EC_QUEUE_PREEMPTION_ERROR",
    31: "EC_QUEUE_NEW",
    32: "EC_DEVICE_QUEUE_DELETE",
    33: "EC_DEVICE_MEMORY_VIOLATION",
    34: "EC_DEVICE_RAS_ERROR",
    35: "EC_DEVICE_FATAL_HALT",
    36: "EC_DEVICE_NEW",
    48: "EC_PROCESS_RUNTIME",
    49: "EC_PROCESS_DEVICE_REMOVE",
}


# Node capability and debug property bits (ROCdbgapi src/linux/kfd_sysfs.h; kernel kfd_topology.h).
HSA_CAP_WATCH_POINTS_SUPPORTED = 0x00000080
HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT = 8
HSA_CAP_TRAP_DEBUG_SUPPORT = 0x00008000
HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED = 0x00010000
HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED = 0x00020000
HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED = 0x00040000
HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED = 0x20000000
HSA_DBG_WATCH_ADDR_MASK_HI_BIT_SHIFT = 4
HSA_DBG_DISPATCH_INFO_ALWAYS_VALID = 0x00000400

_DEBUG_CAPS = (
    HSA_CAP_WATCH_POINTS_SUPPORTED
    | 2 << HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT  # 4 address watch points
    | HSA_CAP_TRAP_DEBUG_SUPPORT
    | HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED
    | HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED
    | HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED
    | HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED
)

# What the KFD topology of real boards reports for one agent (one GCD / one partition), as the kernel
# fills `kfd_dbg_device_info_entry` from the node properties: PCI ids, MEC firmware version, shader
# array geometry, debug capabilities (the firmware bit is set when the MEC firmware supports the
# debugger) and debug properties (address-watch mask bits; dispatch info always valid from GC 9.4.2).
# Values are representative of shipping boards; docs/hardening.md says where each comes from.
AGENT_PROFILES: dict[str, dict[str, int]] = {
    # AMD Instinct MI250X, one GCD (gfx90a, GC 9.4.2): 110 CUs x 4 SIMDs, 8 shader arrays
    "gfx90a": {
        "location_id": 0xC100, "vendor_id": 0x1002, "device_id": 0x740C, "revision_id": 0x01,
        "subsystem_vendor_id": 0x1002, "subsystem_device_id": 0x0B0C, "fw_version": 78,
        "simd_count": 440, "max_waves_per_simd": 8, "array_count": 8, "simd_arrays_per_engine": 1, "num_xcc": 1,
        "capability": _DEBUG_CAPS,
        "debug_prop": 6 | 29 << HSA_DBG_WATCH_ADDR_MASK_HI_BIT_SHIFT | HSA_DBG_DISPATCH_INFO_ALWAYS_VALID,
    },
    # AMD Instinct MI300X (gfx942, GC 9.4.3), SPX mode: 8 XCCs, 304 CUs x 4 SIMDs, 32 shader arrays
    "gfx942": {
        "location_id": 0x0C00, "vendor_id": 0x1002, "device_id": 0x74A1, "revision_id": 0x00,
        "subsystem_vendor_id": 0x1002, "subsystem_device_id": 0x74A1, "fw_version": 157,
        "simd_count": 1216, "max_waves_per_simd": 8, "array_count": 32, "simd_arrays_per_engine": 1, "num_xcc": 8,
        "capability": _DEBUG_CAPS,
        "debug_prop": 6 | 30 << HSA_DBG_WATCH_ADDR_MASK_HI_BIT_SHIFT | HSA_DBG_DISPATCH_INFO_ALWAYS_VALID,
    },
    # AMD Radeon RX 7900 XTX (gfx1100, GC 11.0.0): 96 CUs x 2 SIMDs, 12 shader arrays in 6 engines
    "gfx1100": {
        "location_id": 0x0300, "vendor_id": 0x1002, "device_id": 0x744C, "revision_id": 0xC8,
        "subsystem_vendor_id": 0x1002, "subsystem_device_id": 0x0E3B, "fw_version": 2250,
        "simd_count": 192, "max_waves_per_simd": 16, "array_count": 12, "simd_arrays_per_engine": 2, "num_xcc": 1,
        "capability": _DEBUG_CAPS,
        "debug_prop": 7 | 29 << HSA_DBG_WATCH_ADDR_MASK_HI_BIT_SHIFT,
    },
}

# PCI device id -> the device's name as pci.ids spells it (what `info agents` shows as Device Name; ROCgdb
# shows the marketing name the driver reports, which a core does not record). Ids without an entry show
# the id itself.
DEVICE_NAMES: dict[int, str] = {
    0x740C: "Aldebaran/MI200 [Instinct MI250X/MI250]",
    0x740F: "Aldebaran/MI200 [Instinct MI210]",
    0x74A1: "Aqua Vanjaram [Instinct MI300X]",
    0x744C: "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]",
}


def device_name(device_id: int | None) -> str:
    if not device_id:
        return "unknown device"
    return DEVICE_NAMES.get(device_id, f"device {device_id:#06x}")


# ROCdbgapi 0.77 accepts ROCr's r_debug versions 8..10 (newer rocm-systems dbgapi wants 12).
R_VERSION_MIN, R_VERSION_MAX = 8, 10


def agent_debuggable_warnings(entry: dict) -> list[str]:
    """Why ROCdbgapi would not debug this agent (or not open the core at all), as it says it.

    dbgapi reads the firmware bit of `capability` to decide whether the agent can be debugged
    ("firmware version N not supported": no queues, no waves), and aborts with "Invalid node
    properties" when the shader geometry is zero.
    """
    out = []
    gid = entry.get("gpu_id", 0)
    cap = entry.get("capability", 0)
    if not cap & HSA_CAP_TRAP_DEBUG_SUPPORT:
        out.append(f"agent gpu_id {gid}: capability {cap:#x} lacks HSA_CAP_TRAP_DEBUG_SUPPORT: "
                   "dbgapi would treat it as not debuggable (no queues, no waves)")
    if not cap & HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED:
        out.append(f"agent gpu_id {gid}: firmware version {entry.get('fw_version', 0)} not supported "
                   f"(capability {cap:#x} lacks HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED): dbgapi would show "
                   "no queues and no waves for it; this core could not have been debugged")
    zero = [k for k in ("simd_count", "max_waves_per_simd", "array_count", "simd_arrays_per_engine", "num_xcc")
            if not entry.get(k)]
    if zero:
        out.append(f"agent gpu_id {gid}: {', '.join(zero)} zero: dbgapi stops with \"Invalid node properties\"")
    return out


def exception_mask(code: int) -> int:
    """KFD_EC_MASK(ecode) = 1 << (ecode - 1)."""
    return 1 << (code - 1)


def exception_names(status: int) -> list[str]:
    """Names of the exception codes set in a KFD exception_status word (unknown bits as EC_<n>)."""
    names = []
    for bit in range(64):
        if status >> bit & 1:
            code = bit + 1
            names.append(EXCEPTION_CODES.get(code, f"EC_{code}"))
    return names


def processor_name(gfx_target_version: int) -> str:
    """KFD gfx_target_version (e.g. 90402) -> processor name ("gfx942"), as dbgapi prints it."""
    major = gfx_target_version // 10000
    minor = (gfx_target_version // 100) % 100
    step = gfx_target_version % 100
    if minor > 15 or step > 15:
        return f"gfx?({gfx_target_version})"
    return f"gfx{major}{minor:x}{step:x}"


def gfx_target_version(processor: str) -> int:
    """Inverse of `processor_name`: "gfx90a" -> 90010, "gfx1100" -> 110000."""
    digits = processor.split(":")[0][3:]
    if len(digits) < 3:
        raise ValueError(f"bad processor name {processor!r}")
    major = int(digits[:-2])
    return major * 10000 + int(digits[-2], 16) * 100 + int(digits[-1], 16)


@dataclass
class KfdNote:
    note_version: int
    kfd_version: tuple[int, int]
    runtime_info: dict
    agents: list[dict]
    queues: list[dict]
    entry_sizes: dict
    warnings: list[str] = field(default_factory=list)


def parse_kfd_note(desc: bytes | memoryview, *, file: str | None = None, offset: int = 0) -> KfdNote:
    """Decode the note descriptor. Raises FormatError for a note that cannot be read at all."""
    desc = bytes(desc)
    n = len(desc)
    if n < 8:
        raise FormatError("AMDGPU core-state note shorter than its version word", file=file, offset=offset)
    version = int.from_bytes(desc[:8], "little")
    if version != NOTE_FORMAT_VERSION:
        raise FormatError(
            f"AMDGPU core-state note version {version} is not supported (expected 1)",
            file=file,
            offset=offset,
        )
    if n < 8 + NOTE_HEADER.size:
        raise FormatError("AMDGPU core-state note header truncated", file=file, offset=offset + 8)
    hdr = NOTE_HEADER.unpack(desc, 8)
    warnings: list[str] = []
    kv = (hdr["kfd_version_major"], hdr["kfd_version_minor"])
    if not (KFD_VERSION_MIN <= kv < KFD_VERSION_MAX_EXCLUSIVE):
        warnings.append(f"KFD version {kv[0]}.{kv[1]} is outside what dbgapi accepts ([1.13, 2.0))")
    rsize = hdr["runtime_info_size"]
    asize, acount = hdr["agent_entry_size"], hdr["agent_entry_count"]
    qsize, qcount = hdr["queue_entry_size"], hdr["queue_entry_count"]
    for what, v in (("runtime_info_size", rsize), ("agent_entry_size", asize), ("queue_entry_size", qsize)):
        if v % 8:
            warnings.append(f"{what} {v} is not a multiple of 8 (dbgapi rejects such notes)")
    pos = 8 + NOTE_HEADER.size
    need = pos + rsize + acount * asize + qcount * qsize
    if need > n:
        # Load what fits: a truncated note still names agents and queues it fully holds.
        warnings.append(f"AMDGPU core-state note is {n} bytes, its header describes {need}")
    elif need != n:
        warnings.append(f"AMDGPU core-state note has {n - need} trailing bytes (dbgapi rejects such notes)")
    if pos + rsize > n:
        raise FormatError("AMDGPU core-state note: runtime info truncated", file=file, offset=offset + pos)
    runtime = RUNTIME_INFO.unpack(desc, pos, rsize)
    pos += rsize
    agents = []
    for i in range(acount):
        if asize == 0 or pos + asize > n:
            warnings.append(f"agent entries {i}..{acount - 1} missing from the note")
            break
        agents.append(DEVICE_INFO_ENTRY.unpack(desc, pos, asize))
        pos += asize
    queues = []
    if len(agents) == acount:
        for i in range(qcount):
            if qsize == 0 or pos + qsize > n:
                warnings.append(f"queue entries {i}..{qcount - 1} missing from the note")
                break
            queues.append(QUEUE_SNAPSHOT_ENTRY.unpack(desc, pos, qsize))
            pos += qsize
    return KfdNote(
        version,
        kv,
        runtime,
        agents,
        queues,
        {"runtime_info": rsize, "agent": asize, "queue": qsize},
        warnings,
    )


def build_kfd_note(
    kfd_version: tuple[int, int],
    runtime_info: dict,
    agents: list[dict],
    queues: list[dict],
    *,
    agent_entry_size: int = DEVICE_INFO_ENTRY.size,
    queue_entry_size: int = QUEUE_SNAPSHOT_ENTRY.size,
    runtime_info_size: int = RUNTIME_INFO.size,
) -> bytes:
    """Encode a note descriptor (sizes other than ours pad with zeros or cut, like a newer/older KFD)."""

    def fit(b: bytes, size: int) -> bytes:
        return b[:size] if len(b) >= size else b + bytes(size - len(b))

    parts = [
        NOTE_FORMAT_VERSION.to_bytes(8, "little"),
        NOTE_HEADER.pack(
            kfd_version_major=kfd_version[0],
            kfd_version_minor=kfd_version[1],
            runtime_info_size=runtime_info_size,
            agent_entry_count=len(agents),
            agent_entry_size=agent_entry_size,
            queue_entry_count=len(queues),
            queue_entry_size=queue_entry_size,
        ),
        fit(RUNTIME_INFO.pack(runtime_info), runtime_info_size),
    ]
    parts += [fit(DEVICE_INFO_ENTRY.pack(a), agent_entry_size) for a in agents]
    parts += [fit(QUEUE_SNAPSHOT_ENTRY.pack(q), queue_entry_size) for q in queues]
    return b"".join(parts)
