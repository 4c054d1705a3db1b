"""Variables of a frame, evaluated per lane with the frame's registers.

The location is looked up at the frame's PC (a caller frame uses its return address - 1), in the code
object's own address space (the PC minus its load address). Lanes: upstream producers emit no
DW_AT_LLVM_lane_pc, so every lane is evaluated at the wave PC; a lane that is not active at that PC gets
its value *marked* (it may be stale: the lane is elsewhere, or nowhere, in the program).
"""

from __future__ import annotations

from amddbg.dwarf.scopes import variable_value
from amddbg.errors import AmddbgError, NotSupported, Unavailable
from amddbg.session.values import LaneValues, Value


class FrameVariable:
    def __init__(self, frame, var) -> None:
        self.frame = frame
        self.var = var

    @property
    def name(self) -> str:
        return self.var.name

    @property
    def type(self):
        return self.var.type

    @property
    def is_parameter(self) -> bool:
        return self.var.is_parameter

    @property
    def kind(self) -> str:
        return "arg" if self.var.is_parameter else "local"

    def location_text(self) -> str:
        """The DWARF location expression in effect at the frame's PC, as llvm-dwarfdump prints it."""
        from amddbg.dwarf.expr import decode
        from amddbg.dwarf.expr.printer import format_ops

        pc = self._rel_pc()
        expr = self.var.location_at(pc)
        if self.var.const_value is not None:
            return f"constant {self.var.const_value!r}"
        if expr is None:
            return "optimized out"
        try:
            return format_ops(decode(bytes(expr)))
        except Exception:  # noqa: BLE001 - printing is best effort; the raw bytes are the truth
            return "DWARF expression " + bytes(expr).hex()

    def _rel_pc(self) -> int:
        lco = self.frame.code_object
        return self.frame.lookup_pc - (lco.load_address if lco is not None else 0)

    def _ctx(self):
        return _frame_context(self.frame)

    def _raw(self, lanes, rel_pc: int | None = None) -> dict:
        lco = self.frame.code_object
        return variable_value(self.var, self._rel_pc() if rel_pc is None else rel_pc, self._ctx(), lanes,
                              load_bias=lco.load_address if lco is not None else 0)

    def lane_pcs(self) -> dict | None:
        """lane -> (relative PC, in frame) for the variable's frame (`frame_lane_pcs`)."""
        return frame_lane_pcs(self.frame)

    def _lane_value(self, lane: int, lane_pcs: dict | None, thread) -> Value:
        if lane_pcs is not None and lane in lane_pcs:
            pc, in_frame = lane_pcs[lane]
            if not in_frame or pc is None:
                v = Value.unavailable("the lane was not active on entry to this function", self.type)
                v.lane = lane
                return v
            try:
                raw = self._raw([lane], rel_pc=pc)[lane]
            except AmddbgError as exc:
                raw = exc
            return self._value(lane, raw)  # evaluated at the lane's own PC: not marked
        try:
            raw = self._raw([lane])[lane]
        except AmddbgError as exc:
            raw = exc
        v = self._value(lane, raw)
        v.pc_marked = thread.is_wave and lane not in thread.active_lanes
        return v

    def _value(self, lane: int, raw) -> Value:
        if raw is None:
            return Value.optimized_out(self.type)
        if isinstance(raw, NotSupported):
            # a location amddbg cannot evaluate is said, as gdb says it (`x = <error: ...>`), never guessed
            v = Value(self.type, None, error=f"<error: {raw.message}>", lane=lane)
            return v
        if isinstance(raw, Exception):
            v = Value.unavailable(getattr(raw, "why", str(raw)), self.type)
            v.lane = lane
            return v
        return Value(self.type, bytes(raw), lane=lane)

    def value(self, lane: int | None = None) -> Value:
        thread = self.frame.thread
        if thread is None:  # a static frame (Program.frames_at): a location, but no registers or memory
            return Value.unavailable("no core: static session", self.type)
        if lane is None:
            lane = thread.program.focus.lane if thread.is_wave else 0
        lpcs = self.lane_pcs()
        if lpcs is not None and lane not in thread.active_lanes:
            return self._lane_value(lane, lpcs, thread)
        return self._lane_value(lane, None, thread)

    def lane_values(self) -> LaneValues:
        thread = self.frame.thread
        if thread is None:
            return LaneValues({0: self.value()})
        lanes = list(range(thread.lanes)) if thread.is_wave else [0]
        try:
            raw = self._raw(lanes)
        except AmddbgError as exc:
            raw = dict.fromkeys(lanes, exc)
        active = set(thread.active_lanes) if thread.is_wave else {0}
        lpcs = self.lane_pcs() if thread.is_wave else None
        out = {}
        for ln in lanes:
            if lpcs is not None and ln not in active:
                out[ln] = self._lane_value(ln, lpcs, thread)
                continue
            v = self._value(ln, raw.get(ln))
            v.pc_marked = ln not in active
            out[ln] = v
        return LaneValues(out)


def frame_lane_pcs(frame) -> dict | None:
    """lane -> (relative PC, state) from the subprogram's DW_AT_LLVM_lane_pc / DW_AT_LLVM_active_lane, or
    None when the producer emits no lane PC (every upstream clang): then lanes are evaluated at the wave PC."""
    cached = getattr(frame, "_lane_pcs", False)
    if cached is not False:
        return cached
    result = None
    thread = frame.thread
    scopes = frame.scopes()
    sub = next((sc for sc in scopes if sc.kind in ("subprogram", "inlined")), None)
    if thread is not None and thread.is_wave and sub is not None:
        from amddbg.dwarf.expr import producer_options
        from amddbg.dwarf.expr.lanes import LaneState, active_mask, lane_pcs
        from amddbg.dwarf.scopes import _origin_attr

        die = sub.die
        info = die.unit.dwarf.producer_info(die.unit)
        expr = _origin_attr(die, info.lane_attr("lane_pc"))
        if isinstance(expr, (bytes, bytearray)) or hasattr(expr, "__bytes__"):
            opts = {"address_size": die.unit.addr_size,
                    **producer_options(info.producer, info.augmentation)}
            try:
                ctx = _frame_context(frame)
                act_expr = _origin_attr(die, info.lane_attr("active_lane"))
                act = active_mask(ctx, bytes(act_expr) if act_expr is not None else None, lanes=thread.lanes,
                                  exec_mask=thread.exec, **opts)
                load = frame.code_object.load_address if frame.code_object else 0
                # a trap-stopped frame 0 is positioned at its s_trap (frames._stop_pc), not at the pc register
                wave_pc = (getattr(frame, "source_pc", None) or frame.pc) - load
                pcs = lane_pcs(ctx, bytes(expr), lanes=thread.lanes, wave_pc=wave_pc,
                               active=act, **opts)
                result = {p.lane: (p.pc, p.state is not LaneState.NOT_IN_FRAME) for p in pcs}
            except AmddbgError:
                result = None
    try:
        frame._lane_pcs = result
    except AttributeError:
        pass
    return result


def _frame_context(frame):
    try:
        return frame.context()
    except Unavailable:
        from amddbg.dwarf.expr import StaticContext

        return StaticContext()
