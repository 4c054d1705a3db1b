"""The debugger's object model (drgn's shape): `amddbg.open(...)` returns a `Program`.

Everything above this layer — the REPL, batch mode, JSON, triage, plugins — uses only what is exported
here; everything below it (core, codeobj, dwarf, isa) is joined here and nowhere else.
"""

from amddbg.session.frames import Frame, SourceFrame
from amddbg.session.program import Focus, LoadedCodeObject, Program, address_space, open
from amddbg.session.threads import HostThread, Thread, WaveState, WaveThread
from amddbg.session.values import CType, LaneValues, Value
from amddbg.session.variables import FrameVariable

__all__ = ["CType", "Focus", "Frame", "FrameVariable", "HostThread", "LaneValues", "LoadedCodeObject", "Program",
           "SourceFrame", "Thread", "Value", "WaveState", "WaveThread", "address_space", "open"]
