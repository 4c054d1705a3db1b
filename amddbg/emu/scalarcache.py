"""The scalar data cache: why a poll that clang compiled to `s_load` can spin forever on another workgroup's store.

Scalar memory reads (`s_load_*`, `s_buffer_load_*`) go through a cache of their own, in front of the same L2 (and on
GFX10-GFX12 the same shader-array/shader-engine cache) as the vector caches:
- GFX9/CDNA (gfx90a, gfx942): a scalar L1 "shared by all wavefronts on a group of CUs" (LLVM AMDGPUUsage, "Memory
  Model GFX90A/GFX942"); 16 KiB per 2 CUs on MI200 and MI300 (ROCm "AMD GPU specifications", L1 Scalar Cache). A
  workgroup on CU `c` (`VectorCaches.cu_of`) uses scalar cache `c // 2`.
- GFX10/GFX11/GFX12: a scalar L0 "shared by all wavefronts on a WGP", a client of the shader array's L1 (GFX12: the
  shader engine's L1 buffer) like the vector L0: one per WGP, `VectorCaches.cu_of`, reading through `gl1`.
"The scalar and vector L1 caches are not coherent" (AMDGPUUsage): a vector store or atomic never updates or drops a
scalar line, and nothing in a dispatch drops one but `s_dcache_inv` (and the CP's invalidate "at the start of each
kernel dispatch"). The compiler relies on that only for memory "proven to not change during the execution of the
kernel dispatch"; clang -O2 also selects `s_load` for a plain uniform load it proves no store of the function
clobbers, which is how a cross-workgroup poll ends up here (corefiles/scalarhangs).

Policy, deterministic as the vector caches' (docs/emulator.md "The scalar data cache"): a scalar load hits the line
its scalar cache holds or fills it from the level below, and keeps returning those bytes until `s_dcache_inv`. The
SMEM cache-policy bits are read as the vector route reads them (`VectorCaches.route`): GFX9 `glc` ("globally
coherent", on gfx940+ too, whose SMEM keeps the GLC bit) misses the scalar cache; GFX10 `glc`/`dlc`, GFX11 `glc`,
GFX12 `scope:` as for vector loads. The memory-model tables list no SMEM row (scalar loads are never used for
memory that changes), so these bits are the hardware's, not a code sequence's.
"""

from __future__ import annotations

LINE = 64


def read_lines(memory, cache: dict, below: dict | None, address: int, size: int, lanes: list) -> bytes:
    """`size` bytes at `address` through `cache` (base -> line): a missing line is filled from `below` (the next
    level, filled in turn from memory) or from memory, as a copy. Vector (`lanes` = the reading lane, for a fault's
    report) and scalar caches (no lane) read alike."""
    out = bytearray()
    a, end = address, address + size
    while a < end:
        base = a - a % LINE
        line = cache.get(base)
        if line is None:
            src = below.get(base) if below is not None else None
            if src is None:
                src = bytearray(memory.read(base, LINE, lanes))
                if below is not None:
                    below[base] = src
            line = cache[base] = bytearray(src)
        n = min(end - a, base + LINE - a)
        out += line[a - base:a - base + n]
        a += n
    return bytes(out)


class ScalarCacheMixin:
    """The scalar caches of `VectorCaches` (which provides memory, family, gfx94, gl1, two_level, cu_of, route)."""

    scalar: dict[int, dict[int, bytearray]]

    def sqc_of(self, wave) -> int:
        """The scalar cache a wave reads through: shared by CU pairs on GFX9, one per WGP on GFX10+."""
        cu = self.cu_of(wave)
        return cu if self.two_level else cu // 2

    def scalar_route(self, policy: dict | None) -> int:
        """`VectorCaches.route`'s levels for a scalar load (0: L2, 1: GL1 only, 2: scalar cache then GL1, 3: the
        scalar cache filled from L2). gfx940+ SMEM has GLC where vector memory has SC0/SC1; an `acquire:agent`
        assumption (replay) sets the vector bits, read here as the same bypass."""
        policy = policy or {}
        if self.gfx94:
            return 0 if policy.get("glc") or policy.get("sc1") else 2
        return self.route(policy)

    def scalar_load(self, wave, address: int, size: int, policy: dict | None) -> bytes:
        """The bytes a scalar load reads: through the wave's scalar cache unless its policy bits bypass it."""
        n = self.scalar_route(policy)
        if n == 0:
            return self.memory.read(address, size, [])
        if n == 1:
            return read_lines(self.memory, self.gl1.setdefault(self.array_of(wave), {}), None, address, size, [])
        below = self.gl1.setdefault(self.array_of(wave), {}) if self.two_level and n == 2 else None
        return read_lines(self.memory, self.scalar.setdefault(self.sqc_of(wave), {}), below, address, size, [])

    def scalar_invalidate(self, wave) -> None:
        """`s_dcache_inv` (and GFX7/8's `s_dcache_inv_vol`): the wave's scalar cache drops every line."""
        self.scalar.pop(self.sqc_of(wave), None)

    def scalar_prefill(self, wave_like, base: int, data: bytes) -> None:
        """The line at `base` is in the wave's scalar cache with these bytes (see `VectorCaches.prefill`)."""
        self.scalar.setdefault(self.sqc_of(wave_like), {})[base] = bytearray(data)
