"""Memory and execution scopes, ordered from narrowest to widest.

AMDGPU: singlethread < wavefront < workgroup < [cluster] < agent < system. Vulkan's litmus corpus
adds queue family between workgroup and device; it is kept as its own level (QUEUE_FAMILY) so the
Vulkan tests are decidable while AMDGPU programs simply never use it.
"""

from __future__ import annotations

import enum


class Scope(enum.IntEnum):
    SINGLETHREAD = 0
    WAVEFRONT = 1  # Vulkan subgroup
    WORKGROUP = 2
    CLUSTER = 3  # GFX12.5 workgroup clusters
    QUEUE_FAMILY = 4  # Vulkan only
    AGENT = 5  # Vulkan device
    SYSTEM = 6

    def __str__(self) -> str:
        return self.name.lower()

    def includes(self, other: Scope) -> bool:
        return self >= other
