"""Variables of a frame, evaluated per lane with the frame's registers.

The location is looked up at the frame's PC (a caller frame uses its return address - 1), in the code
object's own address space (the PC minus its load address). Lanes: upstream producers emit no
DW_AT_LLVM_lane_pc, so every lane is evaluated at the wave PC; a lane that is not active at that PC gets
its value *marked* (it may be stale: the lane is elsewhere, or nowhere, in the program).
"""

from __future__ import annotations

from amddbg.dwarf.scopes import variable_value
from amddbg.errors import AmddbgError, Unavailable
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

    def _raw(self, lanes) -> dict:
        try:
            ctx = self.frame.context()
        except Unavailable:
            ctx = None
        if ctx is None:
            from amddbg.dwarf.expr import StaticContext

            ctx = StaticContext()
        return variable_value(self.var, self._rel_pc(), ctx, lanes)

    def _value(self, lane: int, raw) -> Value:
        if raw is None:
            return Value.optimized_out(self.type)
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
        try:
            raw = self._raw([lane])[lane]
        except AmddbgError as exc:
            raw = exc
        v = self._value(lane, raw)
        v.pc_marked = thread.is_wave and lane not in thread.active_lanes
        return v

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
        out = {}
        for ln in lanes:
            v = self._value(ln, raw.get(ln))
            v.pc_marked = ln not in active
            out[ln] = v
        return LaneValues(out)
