"""Write AMDGPU cores: `CoreBuilder` (split GPU core, optional host core, unified core)."""

from amddbg.core.writer.builder import AgentSpec, CoreBuilder, DispatchSpec, HostImage, QueueSpec, WaveSpec

__all__ = ["AgentSpec", "CoreBuilder", "DispatchSpec", "HostImage", "QueueSpec", "WaveSpec"]
