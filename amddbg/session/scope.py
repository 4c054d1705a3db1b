"""`ProgramScope`: what an expression sees from the focused frame and lane of a `Program`."""

from __future__ import annotations

from amddbg.errors import AmddbgError, Unavailable, UsageError
from amddbg.session.values import BUILTIN_TYPES, LONG, ULONG, CType, Value

UINT32 = CType("uint32_t", "int", 4, False)
UINT64 = CType("uint64_t", "int", 8, False)
CODE_PTR = CType("void (*)()", "pointer", 8, False, CType("void", "void", 1), "global")
STRING = "string"


def string_value(text: str) -> Value:
    data = text.encode() + b"\0"
    return Value(CType(f"char [{len(data)}]", STRING, len(data)), data)


class ProgramScope:
    def __init__(self, program, frame, lane: int) -> None:
        self.program = program
        self.frame = frame
        self.lane = lane
        t = program.focus.thread
        self.thread = frame.thread if frame is not None else t
        self.wave_size = getattr(self.thread, "lanes", 64) if self.thread is not None else 64

    # -- names -----------------------------------------------------------------------------------
    def lookup_variable(self, name: str):
        if self.frame is None:
            return None
        v = self.frame.variable(name)
        if v is None:
            return None
        return v.value(self.lane)

    def lookup_type(self, name: str):
        if name in BUILTIN_TYPES:
            return BUILTIN_TYPES[name]
        lcos = []
        if self.frame is not None and self.frame.code_object is not None:
            lcos.append(self.frame.code_object)
        lcos += [c for c in self.program.code_objects if c not in lcos]
        for lco in lcos:
            t = _types_by_name(lco).get(name)
            if t is not None:
                return t
        return None

    # -- registers ---------------------------------------------------------------------------------
    def read_register(self, name: str, lane: int | None) -> Value:
        t = self.thread
        if t is None:
            raise KeyError(name)
        if not t.is_wave:
            regs = t.host.registers
            key = name.lower()
            key = {"pc": "rip", "sp": "rsp", "fp": "rbp"}.get(key, key)
            if key not in regs:
                raise KeyError(name)
            return Value.from_int(regs[key], CODE_PTR if key == "rip" else LONG)
        regs = t.registers
        n = name.lower()
        if n == "pc" and self.frame is not None:
            return Value.from_int(self.frame.pc, CODE_PTR)
        try:
            if regs.is_vector(n):
                v = regs.read_named(n, lane=lane)
                return Value(UINT32, v.to_bytes(4, "little"), lane=lane, register=n)
            v = regs.read_named(n)
        except Unavailable as exc:
            return Value(UINT32, None, error="<unavailable>", register=n)._why(exc.why)
        if n in ("exec", "vcc", "xnack_mask"):
            return Value(UINT64 if t.lanes == 64 else UINT32,
                         (v & ((1 << t.lanes) - 1)).to_bytes(8 if t.lanes == 64 else 4, "little"), register=n)
        if n == "flat_scratch":
            return Value(UINT64, (v & ((1 << 64) - 1)).to_bytes(8, "little"), register=n)
        if n == "pc":
            return Value.from_int(v, CODE_PTR)
        return Value(UINT32, (v & 0xFFFFFFFF).to_bytes(4, "little"), register=n)

    # -- memory ----------------------------------------------------------------------------------------
    def read_memory(self, space: str, address: int, size: int, lane: int | None) -> bytes:
        return self.program.read(space, address, size, lane=lane, thread=self.thread)

    # -- convenience and history -------------------------------------------------------------------------
    def convenience(self, name: str):
        t = self.thread
        if name in self.program.convenience:
            return self.program.convenience[name]
        if t is None:
            return None
        if name == "_thread":
            return Value.from_int(t.number)
        if not t.is_wave:
            return None
        wg = t.workgroup or (0, 0, 0)
        if name == "_lane":
            return Value.from_int(self.lane)
        if name == "_lane_count":
            return Value.from_int(t.lanes)
        if name == "_wave_id":
            return string_value(f"({wg[0]},{wg[1]},{wg[2]})/{t.wave_in_group}")
        if name == "_agent":
            return Value.from_int(t.agent_id)
        if name == "_queue":
            return Value.from_int(t.queue_id)
        if name == "_dispatch":
            return Value.from_int(t.dispatch_id if t.dispatch_id is not None else -1)
        if name == "_thread_workgroup_pos":
            return Value.from_int(t.wave_in_group if t.wave_in_group is not None else -1)
        if name == "_dispatch_pos":
            # ROCgdb (amd-dbgapi-target.c dispatch_pos_string): the wave's work-group position and its
            # number in the work-group, "(x,y,z)/w" -- "(?,?,?)/?" when unknown.
            if t.workgroup is None or t.wave_in_group is None:
                return string_value("(?,?,?)/?")
            return string_value(f"({wg[0]},{wg[1]},{wg[2]})/{t.wave_in_group}")
        if name == "_lane_workgroup_pos":
            # ROCgdb (lane_workgroup_pos_string): the lane's work-item position in its work-group,
            # "[x,y,z]" -- "[?,?,?]" when the dispatch is unknown.
            pos = self.lane_position()
            if pos is None:
                return string_value("[?,?,?]")
            return string_value("[{},{},{}]".format(*pos))
        return None

    def lane_position(self) -> tuple[int, int, int] | None:
        """The focused lane's work-item position in its workgroup (wave_in_group * lanes + lane, laid out
        x fastest, as the hardware packs work-items into waves)."""
        t = self.thread
        d = t.dispatch
        size = d.workgroup_size if d is not None else None
        if size is None or t.wave_in_group is None or 0 in size:
            return None
        # A work-group at the grid's edge is partial: the hardware packs only the work-items that fit in
        # the grid, so the flat id splits by the partial sizes (as ROCgdb's work_item_info does).
        grid = d.grid_size
        wg = t.workgroup or (0, 0, 0)
        if grid is not None and all(grid):
            size = tuple(max(1, min(wg[i] * size[i] + size[i], grid[i]) - wg[i] * size[i]) for i in range(3))
        flat = t.wave_in_group * t.lanes + self.lane
        z = flat // (size[0] * size[1])
        flat -= z * size[0] * size[1]
        y = flat // size[0]
        x = flat - y * size[0]
        return (x, y, z)

    def set_convenience(self, name: str, value: Value) -> None:
        if name.startswith("_") and name in ("_lane", "_thread", "_wave_id", "_dispatch_pos",
                                              "_thread_workgroup_pos", "_lane_workgroup_pos"):
            raise UsageError(f"${name} is read-only")
        self.program.convenience[name] = value

    def history(self, index: int | None, back: int) -> Value:
        h = self.program.history
        if index is not None:
            if not 1 <= index <= len(h):
                raise UsageError(f"History has not yet reached ${index}.")
            return h[index - 1]
        if not h:
            if back == 0:
                return Value(CType("void", "void", 0), b"", error="void")
            raise UsageError("History is empty.")
        if back >= len(h):
            raise UsageError(f"History has not yet reached $${back}.")
        return h[len(h) - 1 - back]


def _types_by_name(lco) -> dict:
    cache = getattr(lco, "_type_names", None)
    if cache is not None:
        return cache
    from amddbg.dwarf import constants as C
    from amddbg.dwarf.types import Type

    cache = {}
    tags = (C.DW_TAG_base_type, C.DW_TAG_structure_type, C.DW_TAG_union_type, C.DW_TAG_class_type,
            C.DW_TAG_enumeration_type, C.DW_TAG_typedef)
    try:
        for u in lco.symbolizer.dwarf.units():
            for die in u.dies().values():
                if die.tag in tags and die.name:
                    cache.setdefault(die.name, Type(die))
    except AmddbgError:
        pass
    lco._type_names = cache
    return cache


__all__ = ["ProgramScope", "ULONG"]
