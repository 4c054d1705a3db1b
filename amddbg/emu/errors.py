"""Why a wave stops in the emulator: typed, so run() can say how a dispatch ended."""

from __future__ import annotations

from amddbg.errors import AmddbgError


class WaveStop(Exception):  # noqa: N818 - a control-flow signal carrying the stop state
    """Raised by a semantic to stop the executing wave (state + reason)."""

    def __init__(self, state: str, reason: str) -> None:
        super().__init__(reason)
        self.state = state
        self.reason = reason


class MemoryViolation(WaveStop):
    def __init__(self, address: int, lanes: list[int], what: str = "access") -> None:
        lane_text = ",".join(map(str, lanes[:8])) + ("..." if len(lanes) > 8 else "")
        super().__init__("faulted", f"memory violation: {what} of unmapped address {address:#x} (lanes {lane_text})")
        self.address = address
        self.lanes = lanes
        self.what = what
        self.lane_text = lane_text


class Unsupported(WaveStop):
    def __init__(self, text: str, pc: int) -> None:
        super().__init__("unsupported", f"unsupported instruction {text} at {pc:#x}")


class ModeSwitch(WaveStop):
    """Raised by an instruction that completed and changed how the wave's next instructions are read (GFX9 VGPR
    index mode: s_set_gpr_idx_on/off/idx/mode): the scheduler ends the wave's turn, so its next turn reads the
    code through the new mode. Not a stop: the wave stays ready."""

    def __init__(self) -> None:
        super().__init__("ready", "")


class EmulatorError(AmddbgError):
    """A user-facing problem with a dispatch request (bad kernel name, argument, grid)."""
