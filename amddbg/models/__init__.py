"""Execution models: the AMDGPU/Vulkan memory model, the barrier model and async operations.

The engine is a library: build `Event`s (amddbg.models.events), put them in a `Scenario` with program
order and allowed reads-from sources, and `enumerate_executions` yields candidate executions with
consistency, data races and the relations behind them (amddbg.models.checker / memory). Litmus tests
go through `amddbg.models.litmus.load` and `amddbg.models.verdict.decide`. Barrier objects per GPU
generation and the barrier execution model live in `barriers`, async marks and queues in `asyncops`.
"""

from amddbg.models.checker import Execution, Scenario, enumerate_executions
from amddbg.models.events import INIT, Event, Kind
from amddbg.models.memory import Options

__all__ = ["INIT", "Event", "Execution", "Kind", "Options", "Scenario", "enumerate_executions"]
