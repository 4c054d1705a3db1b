"""Decode queues: amd_queue_t packet ids, context save areas per XCC, control stacks, wave records,
and the dispatch each wave belongs to (AQL packet in the ring, then its kernel descriptor).

Follows ROCdbgapi's `aql_queue_t::update_waves` / `control_stack_iterate` / `get_os_queue_packet_id`.
Where dbgapi calls `fatal_error` (a corrupt header or control stack) we stop decoding that context
save area, keep the waves already decoded, and record a warning.
"""

from __future__ import annotations

import struct

from amddbg.core.arch import Family
from amddbg.core.layouts import AMD_QUEUE, CONTEXT_SAVE_AREA_HEADER, DISPATCH_PACKET, KERNEL_DESCRIPTOR
from amddbg.core.memory import SegmentMap
from amddbg.core.model import Agent, Dispatch, KernelDescriptor, Queue, Wave
from amddbg.errors import Unavailable

AQL_PACKET_SIZE = 64
READ_DISPATCH_ID_OFFSET = AMD_QUEUE.offset("read_dispatch_id")  # 128
HSA_DBG_DISPATCH_INFO_ALWAYS_VALID = 0x400
MAX_CONTROL_STACK = 8 << 20
MAX_XCC = 64  # MI300X has 8 XCCs per agent; more is a corrupt note


def read_amd_queue(mem: SegmentMap, queue: Queue, warnings: list[str]) -> None:
    """Fill the queue's packet ids (and amd_queue_t fields) from the host's amd_queue_t."""
    try:
        queue.write_dispatch_id = mem.u64(queue.write_pointer_address)
        queue.read_dispatch_id = mem.u64(queue.read_pointer_address)
    except Unavailable as exc:
        warnings.append(f"queue {queue.queue_id}: packet ids unavailable ({exc.why})")
        return
    try:
        base = queue.read_pointer_address - READ_DISPATCH_ID_OFFSET
        queue.amd_queue = AMD_QUEUE.unpack(mem.read(base, AMD_QUEUE.size))
    except Unavailable:
        queue.amd_queue = None


def packet_id(queue: Queue, index: int) -> int | None:
    """AQL packet id from a ring index (dbgapi's get_os_queue_packet_id), None if out of range."""
    ring = queue.ring_size // AQL_PACKET_SIZE
    if ring == 0 or index >= ring or queue.read_dispatch_id is None or queue.write_dispatch_id is None:
        return None
    rd, wr = queue.read_dispatch_id, queue.write_dispatch_id
    pid = index + (rd // ring) * ring
    if pid < rd and (rd % ring) > (wr % ring):
        pid += ring
    if not (rd <= pid < wr):
        return None
    return pid


def read_dispatch(mem: SegmentMap, agent: Agent, queue: Queue, pid: int) -> Dispatch:
    addr = queue.ring_base_address + (pid * AQL_PACKET_SIZE) % queue.ring_size
    try:
        packet = DISPATCH_PACKET.unpack(mem.read(addr, DISPATCH_PACKET.size))
    except Unavailable as exc:
        return Dispatch(agent.gpu_id, queue.queue_id, pid, addr, None, error=f"AQL packet unavailable ({exc.why})")
    d = Dispatch(agent.gpu_id, queue.queue_id, pid, addr, packet)
    try:
        kd = KERNEL_DESCRIPTOR.unpack(mem.read(packet["kernel_object"], KERNEL_DESCRIPTOR.size))
        d.kernel_descriptor = KernelDescriptor(packet["kernel_object"], kd)
    except Unavailable as exc:
        d.error = f"kernel descriptor unavailable ({exc.why})"
    return d


def decode_queue(
    mem: SegmentMap,
    agent: Agent,
    queue: Queue,
    family: Family,
    *,
    r_version: int,
    ttmp_setup: bool,
    dispatches: dict,
    warnings: list[str],
    lost: list[int] | None = None,
) -> list[Wave]:
    """All wave records of one queue, in control-stack order, XCC by XCC.

    `lost` ([waves whose records the control stack lists but the file does not hold, XCCs whose wave count is
    unknown]) is added to when the core is cut short: what `Core.damage` reports."""
    lost = lost if lost is not None else [0, 0]
    read_amd_queue(mem, queue, warnings)
    agent_ttmps = ttmp_setup or bool(agent.entry.get("debug_prop", 0) & HSA_DBG_DISPATCH_INFO_ALWAYS_VALID)
    waves: list[Wave] = []
    num_xcc = max(1, agent.num_xcc)
    if num_xcc > MAX_XCC:
        warnings.append(f"agent {agent.gpu_id}: implausible num_xcc {num_xcc}; decoding the first {MAX_XCC}")
        num_xcc = MAX_XCC
    for xcc in range(num_xcc):
        ctx = queue.ctx_save_restore_address + xcc * queue.ctx_save_restore_area_size
        where = f"queue {queue.queue_id} XCC {xcc}"
        try:
            hdr = CONTEXT_SAVE_AREA_HEADER.unpack(mem.read(ctx, 24), 0, 24)
        except Unavailable as exc:
            warnings.append(f"{where}: context save area header unavailable ({exc.why})")
            lost[1] += 1
            continue
        cs_begin = ctx + hdr["control_stack_offset"]
        cs_size = hdr["control_stack_size"]
        wave_end = ctx + hdr["wave_state_offset"]
        wave_begin = wave_end - hdr["wave_state_size"]
        if cs_begin + cs_size != wave_begin:
            warnings.append(
                f"{where}: corrupted context save area header (control stack and wave area are not contiguous)"
            )
            continue
        if cs_size == 0:
            continue
        if cs_size % 4 or cs_size > MAX_CONTROL_STACK:
            warnings.append(f"{where}: corrupted control stack size {cs_size}")
            continue
        try:
            words = struct.unpack(f"<{cs_size // 4}I", mem.read(cs_begin, cs_size))
        except Unavailable as exc:
            warnings.append(f"{where}: control stack unavailable ({exc.why})")
            lost[1] += 1
            continue
        waves.extend(
            _iterate(
                mem,
                agent,
                queue,
                family,
                xcc,
                words,
                wave_end,
                wave_begin,
                r_version,
                agent_ttmps,
                dispatches,
                warnings,
                where,
                lost,
            )
        )
    return waves


def _iterate(
    mem,
    agent,
    queue,
    family,
    xcc,
    words,
    wave_end,
    wave_begin,
    r_version,
    agent_ttmps,
    dispatches,
    warnings,
    where,
    lost,
) -> list[Wave]:
    out: list[Wave] = []
    state0 = state1 = 0
    top = wave_end
    leader: Wave | None = None
    i = 2  # the 2 PM4 packets at the top of the stack
    n = len(words)
    gap = family.context_gap
    while i < n:
        w = words[i]
        if w >> 30 & 1:  # event
            i += 1
            continue
        if w >> 31 & 1:  # state
            state0 = w
            if family.two_state_words:
                i += 1
                state1 = words[i] if i < n else 0
            i += 1
            continue
        i += 1
        sizes = family.sizes(state0, state1)
        word = family.wave_word(w)
        size = family.record_size(sizes, word.first)
        if top - size < wave_begin:
            warnings.append(
                f"{where}: corrupted control stack or wave save area (wave {len(out)} runs below the wave area)"
            )
            return out
        csa = top - gap
        save = csa - (sizes.lds if word.first else 0)
        try:  # 16 hwregs at the HWREG block's start, 16 TTMPs at its end (gfx1250: just below it)
            hwb = save - family.hwreg_bytes
            regs = struct.unpack("<16I", mem.read(hwb, 64)) + struct.unpack(
                "<16I", mem.read(hwb + family.ttmp_offset, 64))
        except Unavailable as exc:
            rest = sum(1 for x in words[i:] if not x >> 30)
            warnings.append(
                f"{where}: the records of waves {len(out)}..{len(out) + rest} are not in the core ({exc.why})"
            )
            lost[0] += rest + 1
            return out
        wave = Wave(
            agent,
            queue,
            family,
            xcc,
            len(out),
            csa,
            sizes,
            word,
            (w, state0, state1),
            list(regs[:16]),
            list(regs[16:]),
            mem,
            r_version,
            agent_ttmps and family.spi_ttmps_valid(list(regs[16:]), r_version),
        )
        if word.first:
            leader = wave
        wave.lds_owner = leader
        if word.last:
            leader = None
        if wave.ttmps_valid:
            index = family.packet_index(wave.ttmps)
            pid = packet_id(queue, index)
            if pid is None:
                wave.error = f"dispatch packet index {index} is outside the queue's active packets"
            else:
                key = (queue.gpu_id, queue.queue_id, pid)
                d = dispatches.get(key)
                if d is None:
                    d = dispatches[key] = read_dispatch(mem, agent, queue, pid)
                wave.dispatch = d
        out.append(wave)
        top -= size
    lost = sum(1 for w in out if w.error)
    if lost:
        warnings.append(
            f"{where}: {lost} wave(s) name a dispatch packet outside the queue's active packets "
            f"[{queue.read_dispatch_id}, {queue.write_dispatch_id}) (dispatch unknown)"
        )
    if top != wave_begin:
        warnings.append(
            f"{where}: corrupted control stack or wave save area ({wave_end - top} bytes of "
            f"records, wave area holds {wave_end - wave_begin})"
        )
    return out
