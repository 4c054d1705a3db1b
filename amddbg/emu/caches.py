"""Scope-aware vector caches: what makes a flag published at too narrow a scope spin forever.

One non-coherent vector L1 per compute unit (GFX9/CDNA) or per WGP (GFX10+; a workgroup never spans two),
in front of a coherent agent L2 (`GlobalMemory`); GFX10/11 add a GL1 per shader array between the two. Each
workgroup is placed on CU/WGP `workgroup % 4` and shader array `workgroup % 2`.
Deterministic policy (docs/emulator.md):
- a load that the cache-policy bits do not send past the L1 hits the line its CU already holds, or fills it
  from L2; later loads of that CU keep returning the same bytes until the line is invalidated — the stale read
  that hangs a spin-wait whose writer is on another CU;
- loads that bypass the L1: GFX9 `glc`; gfx940+ `sc1`; GFX10/11 `glc` bypasses the WGP's L0 but reads the GL1,
  `dlc` bypasses the GL1 too; GFX12 `scope:SCOPE_SE` reads the shader engine's cache (modelled like GL1),
  `SCOPE_DEV`/`SCOPE_SYS` go to L2;
- stores write through to L2 and update their own CU's line; atomics are performed at L2 and refresh the line;
- invalidates: `buffer_wbinvl1_vol`/`buffer_wbinvl1` (GFX9), `buffer_inv sc1` (gfx940+ agent/system),
  `buffer_gl0_inv` (GFX10/11 L0), `buffer_gl1_inv` (GFX10/11 GL1), `global_inv` (GFX12: SCOPE_SE drops
  the L0, SCOPE_DEV/SYS also the shader engine's cache) drop the lines.
These are the manual's memory-model code sequences read backwards: an acquire at agent scope is a bypassing
load followed by an invalidate, an acquire at workgroup scope is neither, so only the former sees another CU's
release.
"""

from __future__ import annotations

LINE = 64
CUS = 4
ARRAYS = 2
GFX12_SCOPES = {0: "SCOPE_CU", 1: "SCOPE_SE", 2: "SCOPE_DEV", 3: "SCOPE_SYS"}


class VectorCaches:
    def __init__(self, memory, family: str, processor: str) -> None:
        self.memory = memory
        self.family = family
        self.gfx94 = processor.startswith(("gfx94", "gfx95"))
        self.lines: dict[int, dict[int, bytearray]] = {}  # L0/L1 per CU or WGP
        self.gl1: dict[int, dict[int, bytearray]] = {}  # GFX10/11: per shader array
        self.two_level = family in ("gfx10", "gfx11", "gfx12")

    def cu_of(self, wave) -> int:
        return wave.group_key % CUS

    def array_of(self, wave) -> int:
        return wave.group_key % ARRAYS

    @staticmethod
    def _scope(policy: dict) -> str:
        v = policy.get("scope", "")
        return GFX12_SCOPES.get(v, str(v)) if isinstance(v, int) else str(v or "")

    def bypass(self, policy: dict) -> bool:
        if not policy:
            return False
        if self.family == "gfx12":
            return self._scope(policy) in ("SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")
        if self.gfx94:
            return bool(policy.get("sc1"))
        return bool(policy.get("glc") or policy.get("dlc"))

    def load(self, wave, address: int, size: int, lane: int, policy: dict) -> bytes:
        policy = policy or {}
        if self.family == "gfx12":  # scope SE reads the shader engine's cache, DEV and SYS go to L2
            scope = self._scope(policy)
            policy = {"glc": scope in ("SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"),
                      "dlc": scope in ("SCOPE_DEV", "SCOPE_SYS")}
        if self.two_level:
            if policy.get("dlc"):
                return self.memory.read(address, size, [lane])
            gl1 = self.gl1.setdefault(self.array_of(wave), {})
            if policy.get("glc"):
                return self._read(gl1, None, address, size, lane)
            return self._read(self.lines.setdefault(self.cu_of(wave), {}), gl1, address, size, lane)
        if self.bypass(policy):
            return self.memory.read(address, size, [lane])
        return self._read(self.lines.setdefault(self.cu_of(wave), {}), None, address, size, lane)

    def _read(self, cache: dict, below: dict | None, address: int, size: int, lane: int) -> bytes:
        out = bytearray()
        a = address
        end = address + size
        while a < end:
            base = a - a % LINE
            line = cache.get(base)
            if line is None:
                src = below.get(base) if below is not None else None
                if src is None:
                    src = bytearray(self.memory.read(base, LINE, [lane]))
                    if below is not None:
                        below[base] = src
                line = cache[base] = bytearray(src)
            n = min(end - a, base + LINE - a)
            out += line[a - base:a - base + n]
            a += n
        return bytes(out)

    def store(self, wave, address: int, data: bytes, lane: int) -> None:
        self.memory.write(address, data, [lane])
        self.refresh(wave, address, len(data))

    def refresh(self, wave, address: int, size: int) -> None:
        """The writer's own CU sees its write (its line is updated from L2)."""
        for cache in (self.lines.get(self.cu_of(wave)), self.gl1.get(self.array_of(wave))):
            if not cache:
                continue
            a = address - address % LINE
            while a < address + size:
                if a in cache:
                    cache[a] = bytearray(self.memory.read(a, LINE))
                a += LINE

    def invalidate(self, wave, mnemonic: str, policy: dict) -> bool:
        """Apply a cache-control instruction; True when it dropped the wave's L1."""
        m = mnemonic
        drop = False
        if m == "buffer_gl1_inv":
            self.gl1.pop(self.array_of(wave), None)
            return True
        if m in ("buffer_wbinvl1_vol", "buffer_wbinvl1", "buffer_gl0_inv"):
            drop = True
        elif m == "buffer_inv":
            drop = bool(policy.get("sc1")) or not self.gfx94
        elif m in ("global_inv", "global_wbinv"):
            scope = self._scope(policy)
            drop = scope in ("SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")
            if scope in ("SCOPE_DEV", "SCOPE_SYS"):
                self.gl1.pop(self.array_of(wave), None)
        if drop:
            self.lines.pop(self.cu_of(wave), None)
        return drop
