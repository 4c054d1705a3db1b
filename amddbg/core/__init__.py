"""AMDGPU core files: read and write split and unified cores in the format ROCm writes.

Reading: `open_core(path_or_paths)` -> `Core` (agents, queues, dispatches, waves, memory, code
objects, host threads). Writing: `amddbg.core.writer.CoreBuilder`. Merging a split pair:
`amddbg.core.merge.merge_cores`. The format is described in docs/cores.md.
"""

from amddbg.core.model import Agent, CodeObjectRef, Dispatch, KernelDescriptor, Queue, Wave
from amddbg.core.reader import Core, open_core

__all__ = ["Agent", "CodeObjectRef", "Core", "Dispatch", "KernelDescriptor", "Queue", "Wave", "open_core"]
