"""Threads as a debugger lists them: host threads (LWPs) and GPU waves, numbered like gdb/ROCgdb.

A wave's *state* is derived from what was saved, in this order: a stop reason the trap handler recorded
(memory violation, illegal instruction, ... -> faulted; a trap or breakpoint -> trapped), the instruction
at the saved PC (a barrier wait -> at barrier; `s_sleep` -> sleeping, which in a loop that re-reads memory
is a spin-wait), STATUS.HALT (halted), else running. Real hardware leaves a wave that waits at a barrier
with its PC on the barrier instruction; one that sleeps has its PC on (or just after) `s_sleep`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from amddbg.core.arch import STATUS_HALT
from amddbg.errors import AmddbgError
from amddbg.session.registers import WaveRegisters

if TYPE_CHECKING:
    from amddbg.session.frames import Frame
    from amddbg.session.program import Program

FAULT_REASONS = frozenset({
    "memory_violation", "aperture_violation", "illegal_instruction", "address_error", "ecc_error", "fatal_halt",
    "float_input_denormal", "float_divide_by_zero", "float_overflow", "float_underflow", "float_inexact",
    "float_invalid_operation", "int_divide_by_zero", "xnack_error",
})
TRAP_REASONS = frozenset({"breakpoint", "watchpoint", "single_step", "debug_trap", "assert_trap", "trap"})
BARRIER_MNEMONICS = frozenset({"s_barrier", "s_barrier_wait", "s_barrier_join", "s_barrier_signal_isfirst"})
SLEEP_MNEMONICS = frozenset({"s_sleep", "s_sleep_var"})


class WaveState(enum.Enum):
    AT_BARRIER = "at barrier"
    SLEEPING = "sleeping"
    SPINNING = "spinning"
    TRAPPED = "trapped"
    FAULTED = "faulted"
    HALTED = "halted"
    RUNNING = "running"

    def __str__(self) -> str:
        return self.value


@dataclass
class Thread:
    number: int
    program: Program = field(repr=False)

    is_wave = False

    @property
    def target_id(self) -> str:
        raise NotImplementedError

    def frames(self) -> list[Frame]:
        raise NotImplementedError


@dataclass
class HostThread(Thread):
    host: object = None  # amddbg.core.host.HostThread

    @property
    def target_id(self) -> str:
        return f"LWP {self.host.tid}"

    @property
    def lwp(self) -> int:
        return self.host.tid

    @property
    def pc(self) -> int:
        return self.host.pc

    def frames(self) -> list[Frame]:
        from amddbg.session.frames import host_frames

        return host_frames(self)


@dataclass
class WaveThread(Thread):
    """One GPU wave of the core, with ROCgdb's target id and a derived state."""

    wave: object = None  # amddbg.core.model.Wave
    wave_id: int = 0  # ROCgdb's wave id: the amd-dbgapi wave handle, 1-based in discovery order
    agent_id: int = 0  # ROCgdb's agent id (1-based)
    queue_handle: int = 0  # ROCgdb's queue id (1-based handle, not the KFD queue id)
    dispatch_handle: int | None = None  # ROCgdb's dispatch id (1-based handle, not the AQL packet id)
    _frames: list | None = field(default=None, repr=False)

    is_wave = True

    @property
    def workgroup(self) -> tuple[int, int, int] | None:
        return self.wave.workgroup

    @property
    def wave_in_group(self) -> int | None:
        return self.wave.wave_in_group

    @property
    def lanes(self) -> int:
        return self.wave.wave_size

    @property
    def pc(self) -> int:
        return self.wave.pc

    @property
    def exec(self) -> int:
        return self.wave.exec

    @property
    def active_lanes(self) -> list[int]:
        e = self.exec
        return [i for i in range(self.lanes) if e >> i & 1]

    @property
    def dispatch(self):
        return self.wave.dispatch

    @property
    def dispatch_id(self) -> int | None:
        return self.wave.dispatch_id

    @property
    def queue_id(self) -> int:
        return self.wave.queue_id

    @cached_property
    def registers(self) -> WaveRegisters:
        return WaveRegisters(self.wave)

    @property
    def target_id(self) -> str:
        """``AMDGPU Wave A:Q:D:W (X,Y,Z)/N`` as ROCgdb prints it (agent, queue, dispatch, wave ids;
        work-group position; wave index in the work-group). Unknown parts print as ``?``."""
        wg = self.workgroup
        pos = f"({wg[0]},{wg[1]},{wg[2]})" if wg is not None else "(?,?,?)"
        n = self.wave_in_group
        d = self.dispatch_handle
        return (f"AMDGPU Wave {self.agent_id}:{self.queue_handle}:{d if d is not None else '?'}:{self.wave_id} "
                f"{pos}/{n if n is not None else '?'}")

    @property
    def kernel(self) -> str | None:
        return self.program.kernel_name(self.dispatch) if self.dispatch is not None else None

    @property
    def stop_reason(self) -> list[str]:
        return self.wave.stop_reason

    @cached_property
    def _state(self) -> tuple[WaveState, str]:
        reasons = self.wave.stop_reason
        faults = [r for r in reasons if r in FAULT_REASONS]
        if faults:
            return WaveState.FAULTED, ", ".join(faults)
        traps = [r for r in reasons if r in TRAP_REASONS]
        if traps:
            return WaveState.TRAPPED, ", ".join(traps)
        insn = self.program.instruction_at(self.pc)
        prev = self.program.instruction_before(self.pc)
        if insn is not None and insn.mnemonic in BARRIER_MNEMONICS:
            return WaveState.AT_BARRIER, f"waiting at {insn.text}"
        for i in (insn, prev):
            if i is not None and i.mnemonic in SLEEP_MNEMONICS:
                if self.program.in_polling_loop(self.pc):
                    return WaveState.SPINNING, f"{i.text} in a loop that polls memory"
                return WaveState.SLEEPING, i.text
        if self.program.in_polling_loop(self.pc, sleeps=True):
            return WaveState.SPINNING, "in a loop that polls memory and sleeps"
        if self.wave.status & STATUS_HALT:
            return WaveState.HALTED, "STATUS.HALT is set"
        if self.wave.stopped:
            return WaveState.HALTED, "stopped by the trap handler with no exception (debugger stop)"
        return WaveState.RUNNING, "no stop reason and no wait at the saved PC"

    @property
    def state(self) -> WaveState:
        return self._state[0]

    @property
    def state_reason(self) -> str:
        return self._state[1]

    def frames(self) -> list[Frame]:
        if self._frames is None:
            from amddbg.session.frames import wave_frames

            try:
                self._frames = wave_frames(self)
            except AmddbgError:
                raise
        return self._frames
