"""Frames of a wave: physical frames from the unwinder (CFI first, then the ABI), each expanded into the
inlined frames DWARF describes at its PC, innermost first — the list `bt` prints.

Symbolisation (function, file, line, inlined chain) depends only on (code object, pc) and is cached per
program, so 10,000 waves parked at a handful of PCs cost a handful of lookups. Unwinding reads each wave's
own registers and is done lazily, when a wave's frames are first asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from amddbg.dwarf.expr.context import TargetContext
from amddbg.dwarf.unwind import iter_frames
from amddbg.errors import AmddbgError, Unavailable

if TYPE_CHECKING:
    from amddbg.session.program import LoadedCodeObject
    from amddbg.session.threads import Thread, WaveThread


@dataclass
class SourceFrame:
    """One (possibly inlined) function activation at a PC, from DWARF."""

    function: str | None
    linkage_name: str | None
    file: str | None
    line: int
    column: int
    inlined: bool
    how: str = ""  # line-0 attribution (amddbg.dwarf.attribution): "", "preceding", "following", "declaration"


@dataclass
class Frame:
    level: int
    pc: int
    function: str | None  # demangled
    linkage_name: str | None
    file: str | None
    line: int
    column: int
    method: str  # context | cfi | abi | abi-kernel | inlined | host
    inlined: bool
    thread: Thread = field(repr=False)
    code_object: LoadedCodeObject | None = field(default=None, repr=False)
    physical: object = field(default=None, repr=False)  # amddbg.dwarf.unwind.Frame
    inline_depth: int = 0  # 0 = the innermost function of its physical frame
    stop_reason: str = ""
    source_pc: int | None = None  # frame 0 of a wave stopped by s_trap: the trap's address (see _stop_pc)
    line_how: str = ""  # how a line-0 row was attributed (SourceFrame.how); "" = the row's own line

    @property
    def is_innermost(self) -> bool:
        return self.level == 0

    @property
    def lookup_pc(self) -> int:
        """The PC used to find lines and scopes: a caller's PC is a return address, so it looks one byte
        back (into the call instruction), as gdb does."""
        if self.source_pc is not None:
            return self.source_pc
        outer_physical = self.physical is not None and getattr(self.physical, "index", 0) > 0
        return self.pc - 1 if outer_physical else self.pc

    @property
    def at_statement_start(self) -> bool:
        """True when the PC is the first address of its line-table row (gdb omits ``0xPC in`` then)."""
        if self.code_object is None or self.inlined or self.level != 0 and self.method != "inlined":
            pass
        if self.code_object is None:
            return False
        return self.code_object.is_statement_start(self.pc)

    def scopes(self):
        """DWARF scopes of this frame (its own function's blocks, innermost first)."""
        if self.code_object is None:
            return []
        return self.code_object.frame_scopes(self.lookup_pc, self.inline_depth)

    def _variables(self, parameters: bool):
        from amddbg.session.variables import FrameVariable

        out, seen = [], set()
        for sc in self.scopes():
            for v in sc.variables:
                if v.name is None or v.is_parameter != parameters or v.name in seen:
                    continue
                seen.add(v.name)
                out.append(FrameVariable(self, v))
        return out

    def arguments(self):
        return self._variables(True)

    def locals(self):
        return self._variables(False)

    def variable(self, name: str):
        for v in [*self.locals(), *self.arguments()]:
            if v.name == name:
                return v
        return None

    def value(self, name: str, lane: int | str | None = None):
        """The variable's value for one lane (default: the focused lane), or grouped for ``lane="all"``."""
        v = self.variable(name)
        if v is None:
            from amddbg.errors import UsageError

            raise UsageError(f'No symbol "{name}" in current context.')
        if lane == "all":
            return v.lane_values()
        return v.value(lane)

    def lane_pcs(self) -> dict | None:
        """lane -> (relative PC, whether the lane is in this frame) from the subprogram's DW_AT_LLVM_lane_pc and
        DW_AT_LLVM_active_lane, or None when the producer emits no lane PC (every upstream clang)."""
        from amddbg.session.variables import frame_lane_pcs

        return frame_lane_pcs(self)

    def context(self):
        """The DWARF evaluation context of this physical frame (registers through the unwind rules)."""
        if self.physical is None:
            raise Unavailable("register", 0, 0, "this frame has no register context")
        ctx = self.physical.context
        if getattr(ctx, "frame_base_location", None) is None and hasattr(ctx, "use_abi_frame_base"):
            self._set_frame_base(ctx)
        return ctx

    def _set_frame_base(self, ctx) -> None:
        """Upstream clang says only `DW_AT_frame_base: DW_OP_regx SGPR33` (the frame pointer); the AMDGPU
        convention gives its meaning (dwarf.unwind `use_abi_frame_base`): a wave-scaled scratch offset, or a
        per-lane one where flat scratch is architected. Without it every `DW_OP_fbreg` local (all of -O0) would
        be <unavailable>."""
        from amddbg.dwarf.expr import decode

        sub = next((sc for sc in self.scopes() if sc.kind == "subprogram"), None)
        fb = sub.frame_base if sub is not None else None
        if not fb:
            return
        try:
            ops = decode(bytes(fb))
        except Exception:  # noqa: BLE001 - an undecodable frame base leaves fbreg unavailable, as before
            return
        if len(ops) != 1 or ops[0].name != "DW_OP_regx" or not ops[0].operands:
            return
        from amddbg.dwarf.unwind import swizzled_stack

        proc = self.code_object.processor if self.code_object is not None else ""
        try:
            ctx.use_abi_frame_base(ops[0].operands[0], swizzled_stack=swizzled_stack(proc))
        except AmddbgError:
            pass


def wave_context(thread: WaveThread) -> TargetContext:
    from amddbg.dwarf.expr.aspace import Apertures

    wave = thread.wave
    return TargetContext(thread.registers, _WaveMemoryAdapter(wave), wave_size=wave.wave_size,
                         apertures=Apertures(), workgroup=wave.workgroup)


class _WaveMemoryAdapter:
    """`amddbg.amdgpu.Memory` over `core.address_spaces.WaveMemory` (LDS of the wave's own workgroup)."""

    def __init__(self, wave) -> None:
        self._mem = wave.memory

    def read(self, space, address, size, *, lane=None, workgroup=None):
        return self._mem.read(space, address, size, lane=lane)


def wave_frames(thread: WaveThread, *, max_frames: int = 64) -> list[Frame]:
    pc = _stop_pc(thread)
    frames = _wave_frames(thread, pc, max_frames)
    if pc != thread.pc:
        # `$pc`, `info threads` and `x/i $pc` show the pc register; frame 0's line and scopes stay on the trap
        for f in frames:
            if f.physical is None or getattr(f.physical, "index", 0) == 0:
                f.pc, f.source_pc = thread.pc, pc
    return frames


def _wave_frames(thread: WaveThread, pc: int, max_frames: int) -> list[Frame]:
    program = thread.program
    lco = program.code_object_at(pc)
    if lco is None:
        return [Frame(0, pc, None, None, None, 0, 0, "context", False, thread,
                      stop_reason="the PC is in no loaded code object")]
    try:
        code = lco.code_info(thread.lanes)
    except AmddbgError as exc:
        f = _expand(thread, lco, pc, 0, "context", None)
        f[-1].stop_reason = f"cannot unwind: {exc.message}"
        return f
    out: list[Frame] = []
    try:
        for phys in iter_frames(wave_context(thread), code, pc=pc, max_frames=max_frames):
            here = program.code_object_at(phys.pc if phys.index == 0 else phys.pc - 1) or lco
            method = str(phys.method)
            expanded = _expand(thread, here, phys.pc, len(out), method, phys)
            if phys.stop_reason and not phys.outermost:
                expanded[-1].stop_reason = phys.stop_reason
            out.extend(expanded)
    except AmddbgError as exc:
        if not out:
            out = _expand(thread, lco, pc, 0, "context", None)
        out[-1].stop_reason = f"cannot unwind further: {exc.message}"
    return out


# Runtimes whose trap handler leaves a wave stopped by `s_trap` with its PC *after* the trap: every
# `_amdgpu_r_debug.r_version` the cores of ROCm 6.x/7.0 declare (8..10; dbgapi 0.77 reports that PC).
# From r_version 12 the handler halts the wave at the `s_trap` itself.
PC_AFTER_TRAP_BELOW_R_VERSION = 12


def _stop_pc(thread) -> int:
    """The address frame 0's source line and scopes are looked up at.

    For a wave stopped by `s_trap` under a runtime with ``r_version < 12`` the pc register (what dbgapi 0.77
    reports, and what `$pc`, `info threads` and `x/i $pc` show) is the instruction after the trap; looked
    up there, the trap's frame would be on the next statement, or past the function's end with no scope at
    all. The user wants the trap's line, so frame 0 is looked up at the `s_trap` (the instruction before
    the pc). ``r_version >= 12`` runtimes leave the pc at the trap: nothing to adjust."""
    pc = thread.pc
    try:
        wave = thread.wave
        if wave.trap_id is not None and wave.r_version < PC_AFTER_TRAP_BELOW_R_VERSION:
            prev = thread.program.instruction_before(pc)
            if prev is not None and prev.mnemonic == "s_trap":
                return prev.address
    except (AmddbgError, AttributeError):
        pass
    return pc


def _expand(thread, lco, pc: int, level: int, method: str, phys) -> list[Frame]:
    lookup = pc - 1 if phys is not None and phys.index > 0 else pc
    sources = lco.source_frames(lookup)
    out = []
    for depth, s in enumerate(sources):
        last = depth == len(sources) - 1
        out.append(Frame(level + depth, pc, s.function, s.linkage_name, s.file, s.line, s.column,
                         method if last else "inlined", not last, thread, lco, phys, depth, line_how=s.how))
    return out


def host_frames(thread) -> list[Frame]:
    """A host thread's innermost frame (host unwinding is not amddbg's job: gdb does it)."""
    prog = thread.program
    pc = thread.pc
    name = None
    core = prog.core
    if core is not None and getattr(core, "host", None) is not None:
        try:
            sym = core.host.symbolize(pc) if hasattr(core.host, "symbolize") else None
            name = sym[0] if isinstance(sym, tuple) else sym
        except AmddbgError:
            name = None
    return [Frame(0, pc, name, None, None, 0, 0, "host", False, thread,
                  stop_reason="host frames beyond the innermost are gdb's to unwind")]
