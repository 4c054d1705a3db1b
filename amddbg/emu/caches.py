"""Scope-aware vector caches: what makes a flag published at too narrow a scope spin forever.

One non-coherent vector L1 per compute unit (GFX9/CDNA) or per WGP (GFX10+; a workgroup never spans two),
in front of a coherent agent L2 (`GlobalMemory`); GFX10/11 add a GL1 per shader array between the two. Each
workgroup is placed on CU/WGP `workgroup % 4` and shader array `workgroup % 2`.
Deterministic policy (docs/emulator.md):
- a load that the cache-policy bits do not send past the L1 hits the line its CU already holds, or fills it
  from L2; later loads of that CU keep returning the same bytes until the line is invalidated — the stale read
  that hangs a spin-wait whose writer is on another CU;
- loads that bypass the L1 (`VectorCaches.route`): GFX9 `glc`; gfx940+ `sc1`; GFX10 `glc` bypasses the WGP's
  L0 but reads the GL1, `dlc` bypasses the GL1; GFX11 `glc` bypasses both (`dlc` is the MALL's policy);
  GFX12 `scope:SCOPE_SE` reads the shader engine's cache (modelled like GL1), `SCOPE_DEV`/`SCOPE_SYS` go to L2;
- stores write through to L2 and update their own CU's line; atomics are performed at L2 and refresh the line;
- invalidates: `buffer_wbinvl1_vol`/`buffer_wbinvl1` (GFX9), `buffer_inv sc1` (gfx940+ agent/system),
  `buffer_gl0_inv` (GFX10/11 L0), `buffer_gl1_inv` (GFX10/11 GL1), `global_inv` (GFX12: SCOPE_SE drops
  the L0, SCOPE_DEV/SYS also the shader engine's cache) drop the lines.
These are the manual's memory-model code sequences read backwards: an acquire at agent scope is a bypassing
load followed by an invalidate, an acquire at workgroup scope is neither, so only the former sees another CU's
release. Scalar loads read through the scalar data cache (amddbg.emu.scalarcache, mixed in here), which no vector
store or vector invalidate touches.
"""

from __future__ import annotations

from amddbg.emu.scalarcache import LINE, ScalarCacheMixin, read_lines

CUS = 4
ARRAYS = 2
GFX12_SCOPES = {0: "SCOPE_CU", 1: "SCOPE_SE", 2: "SCOPE_DEV", 3: "SCOPE_SYS"}


class VectorCaches(ScalarCacheMixin):
    def __init__(self, memory, family: str, processor: str) -> None:
        self.memory = memory
        self.family = family
        self.gfx94 = processor.startswith(("gfx94", "gfx95"))
        self.lines: dict[int, dict[int, bytearray]] = {}  # L0/L1 per CU or WGP
        self.gl1: dict[int, dict[int, bytearray]] = {}  # GFX10/11: per shader array
        self.scalar: dict[int, dict[int, bytearray]] = {}  # scalar L1 per CU pair (GFX9) / scalar L0 per WGP
        self.two_level = family in ("gfx10", "gfx11", "gfx12")
        # Visibility choices (exploration, docs/emulator.md "Exploration"); off by default: stores write
        # through at once and no line is dropped or filled except by the wave's own instructions.
        self.delayed = False  # stores wait in their CU's write path until drained
        self.pending: dict[int, list[tuple[tuple, int, bytes, int]]] = {}  # CU -> FIFO (wave, address, data, lane)
        self.rng = None
        self.drain_probability = 0.0
        self.evict_probability = 0.0
        self.through = False  # set for the step of an atomic: its write is performed at L2 at once

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
        if self.pending:
            return self._load(wave, address, size, lane, policy)
        return self._load_levels(wave, address, size, lane, policy)

    def route(self, policy: dict | None) -> int:
        """Which cache levels a load with these cache-policy bits reads through before L2 (2: L0/L1 then GL1,
        1: GL1 only, 3: the L0 only, 0: L2), row by row from LLVM's AMDGPUUsage cache-control tables:
        - GFX9 (gfx90a): `glc` misses the L1 (load atomic agent/system: `glc=1`);
        - gfx940+: the SC bits are a scope; `sc1` (agent, system) misses the L1, `sc0` alone (workgroup) does not;
        - GFX10: `glc` makes the L0 MISS_EVICT, `dlc` the GL1, each on its own (load atomic agent/system:
          `glc=1 dlc=1`);
        - GFX11: `glc` makes both the L0 and the GL1 MISS_EVICT; `dlc` only selects the MALL's NOALLOC policy
          (load atomic agent/system: `glc=1`, "If GFX11, omit dlc=1", llvm-project D127405), so a relaxed
          agent-scope load reads L2;
        - GFX12: `scope:SCOPE_SE` reads the shader engine's cache, `SCOPE_DEV`/`SCOPE_SYS` L2."""
        policy = policy or {}
        f = self.family
        if f == "gfx12":
            scope = self._scope(policy)
            return 0 if scope in ("SCOPE_DEV", "SCOPE_SYS") else 1 if scope == "SCOPE_SE" else 2
        if f == "gfx11":
            return 0 if policy.get("glc") else 2
        if f == "gfx10":
            glc, dlc = policy.get("glc"), policy.get("dlc")
            return 0 if glc and dlc else 1 if glc else 3 if dlc else 2
        return 0 if self.bypass(policy) else 2

    def _load_levels(self, wave, address: int, size: int, lane: int, policy: dict) -> bytes:
        levels = self.levels(wave, policy)
        if levels is None:
            return self.memory.read(address, size, [lane])
        return read_lines(self.memory, levels[0], levels[1], address, size, [lane])

    def _load(self, wave, address: int, size: int, lane: int, policy: dict) -> bytes:
        """A load sees its own CU's stores still in the write path (the CU processes its memory operations in
        order, so a later load of the same address, bypassing or not, finds them ahead of it)."""
        data = self._load_levels(wave, address, size, lane, policy)
        fifo = self.pending.get(self.cu_of(wave))
        if not fifo:
            return data
        out = bytearray(data)
        for _, a, d, _ in fifo:
            lo, hi = max(a, address), min(a + len(d), address + size)
            if lo < hi:
                out[lo - address:hi - address] = d[lo - a:hi - a]
        return bytes(out)

    def store(self, wave, address: int, data: bytes, lane: int) -> None:
        if self.delayed and not self.through:
            self.memory.read(address, len(data), [lane])  # an unmapped address faults at issue, as before
            cu = self.cu_of(wave)
            self._patch(self.lines.get(cu), address, data)  # write-through: the writer's L1 line is updated now
            self.pending.setdefault(cu, []).append(((wave.group_key, wave.wave_in_group), address, bytes(data), lane))
            return
        self.memory.write(address, data, [lane])
        self.refresh(wave, address, len(data))

    # -- visibility choices (exploration) ------------------------------------------------------------
    def configure(self, *, delay: bool, drain_probability: float, evict_probability: float, rng) -> None:
        """Turn on delayed write-through and random evictions, both drawn from `rng` (a seeded
        random.Random), so one seed reproduces one visibility order."""
        self.delayed = delay
        self.drain_probability = drain_probability
        self.evict_probability = evict_probability
        self.rng = rng

    def prefill(self, wave_like, address: int, stale: bytes = b"") -> None:
        """The line holding `address` is in the CU's L1 (and its shader array's GL1) with the bytes L2 holds
        now: a fill by an earlier access of that CU, after the dispatch's acquire invalidated the caches.
        `stale`: bytes the line holds at `address` instead (what the CU read before a write it never saw); that
        pin (replay's, of the value the wave's own last read returned) goes into its scalar cache too, which
        only the wave's own scalar reads fill (an exploration never pre-fills it: a scalar line the program never
        read is no behaviour of the hardware, amddbg.emu.scalarcache)."""
        base = address - address % LINE
        data = bytearray(self.memory.read(base, LINE))
        data[address - base:address - base + len(stale)] = stale
        self.lines.setdefault(self.cu_of(wave_like), {})[base] = bytearray(data)
        if stale:
            self.scalar_prefill(wave_like, base, data)
        if self.two_level:
            self.gl1.setdefault(self.array_of(wave_like), {})[base] = bytearray(data)

    @staticmethod
    def _patch(cache: dict | None, address: int, data: bytes) -> None:
        if not cache:
            return
        for i, b in enumerate(data):
            line = cache.get((address + i) - (address + i) % LINE)
            if line is not None:
                line[(address + i) % LINE] = b

    def pending_stores(self) -> int:
        return sum(len(f) for f in self.pending.values())

    def drain_one(self, cu: int) -> None:
        """The oldest store of the CU's write path reaches L2 (the path is in order: a later store of the CU
        never overtakes an earlier one, which keeps a workgroup-scope release cumulative)."""
        fifo = self.pending.get(cu)
        if not fifo:
            return
        (group, _), address, data, lane = fifo.pop(0)
        if not fifo:
            del self.pending[cu]
        self.memory.write(address, data, [lane])
        self._patch(self.lines.get(cu), address, data)
        if self.two_level:
            self._patch(self.gl1.get(group % ARRAYS), address, data)

    def drain_wave(self, wave, keep: int = 0) -> None:
        """Drain the CU's path until at most `keep` stores of this wave are in it (s_waitcnt on the counter
        that counts them: a wave's stores complete in order, and so do the older stores ahead of them)."""
        cu = self.cu_of(wave)
        me = (wave.group_key, wave.wave_in_group)
        while sum(1 for e in self.pending.get(cu, ()) if e[0] == me) > keep:
            self.drain_one(cu)

    def drain_all(self) -> None:
        for cu in list(self.pending):
            while self.pending.get(cu):
                self.drain_one(cu)

    def before_step(self, wave, insn) -> None:
        """An atomic is performed at L2 behind the CU's earlier stores (they drain first) and its own write
        is not delayed."""
        if insn is None or "atomic" not in insn.mnemonic:
            return
        cu = self.cu_of(wave)
        while self.pending.get(cu):
            self.drain_one(cu)
        self.through = True

    def after_step(self, wave, insn, family: str) -> None:
        """The latest point a store may stay in the write path: when the wave gets past its wait on the store
        counter (vmcnt on GFX9, vscnt on GFX10/11, storecnt on GFX12; every release at a scope wider than the
        CU waits there). A wait that blocks leaves the PC on itself and issues again, so the stores are drained
        only when it passes: until then other CUs may still miss them. Then the explorer's choice points:
        maybe one CU's oldest store reaches L2, and maybe one L1 line is evicted (caches may drop a line at
        any time; the next load refills it)."""
        if (self.pending and insn is not None and insn.mnemonic.startswith(("s_waitcnt", "s_wait_"))
                and wave.pc != insn.address):
            keep = _store_wait(insn.mnemonic, insn.text or "", family)
            if keep is not None:
                self.drain_wave(wave, keep)
        self.through = False
        rng = self.rng
        if rng is None:
            return
        if self.pending and rng.random() < self.drain_probability:
            self.drain_one(rng.choice(sorted(self.pending)))
        if self.evict_probability and rng.random() < self.evict_probability:
            cus = sorted(cu for cu, lines in self.lines.items() if lines)
            if cus:
                cu = rng.choice(cus)
                self.lines[cu].pop(rng.choice(sorted(self.lines[cu])))

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

    # -- whole-instruction access (the vectorised fast path of the memory instructions) -------------------------
    def levels(self, wave, policy: dict):
        """(cache, the level below it or None) that a load with `policy` reads through, as `_load_levels` picks
        them (creating the wave's empty level dicts as it does); None when it reads L2 (`memory`) directly."""
        n = self.route(policy)
        if n == 0:
            return None
        if not self.two_level or n == 3:  # (3: GFX10 `dlc` alone, the L0 filled from L2 past the GL1)
            return self.lines.setdefault(self.cu_of(wave), {}), None
        gl1 = self.gl1.setdefault(self.array_of(wave), {})
        if n == 1:
            return gl1, None
        return self.lines.setdefault(self.cu_of(wave), {}), gl1

    def gather(self, wave, addrs, lanes, policy: dict):
        """`load` for every lane of one instruction at once: `addrs` is (lanes, bytes) uint64 in lane order. The
        same lines are filled from the same level, in the same order, and an unmapped line faults at the same
        lane as lane-by-lane `load` calls would. None when the per-lane path must run (a store still in a write
        path, or a bypassing read of an unmapped page, which then faults there exactly as before)."""
        import numpy as np

        if self.pending:
            return None
        levels = self.levels(wave, policy)
        if levels is None:
            return self.memory.gather(addrs)
        cache, below = levels
        flat = addrs.ravel()
        lo = int(flat.min())
        base = lo - lo % LINE
        if int(flat.max()) < base + LINE:  # one line for the whole wave (a flag polled by every lane, a small struct)
            line = cache.get(base)
            if line is None:
                src = below.get(base) if below is not None else None
                if src is None:
                    src = bytearray(self.memory.read(base, LINE, [lanes[0]]))
                    if below is not None:
                        below[base] = src
                line = cache[base] = bytearray(src)
            return np.frombuffer(line, dtype=np.uint8)[(flat - np.uint64(base)).astype(np.intp)].reshape(addrs.shape)
        bases = flat & np.uint64(~(LINE - 1) & 0xFFFFFFFFFFFFFFFF)
        uniq, first, inv = np.unique(bases, return_index=True, return_inverse=True)
        width = addrs.shape[1]
        lines: list = [None] * len(uniq)
        for j in np.argsort(first, kind="stable").tolist():  # first touch order = lane order
            base = int(uniq[j])
            line = cache.get(base)
            if line is None:
                src = below.get(base) if below is not None else None
                if src is None:
                    src = bytearray(self.memory.read(base, LINE, [lanes[int(first[j]) // width]]))
                    if below is not None:
                        below[base] = src
                line = cache[base] = bytearray(src)
            lines[j] = line
        stacked = np.frombuffer(b"".join(lines), dtype=np.uint8)
        return stacked[inv.reshape(-1) * LINE + (flat & np.uint64(LINE - 1)).astype(np.intp)].reshape(addrs.shape)

    def scatter(self, wave, addrs, data) -> bool:
        """`store` for every lane of one instruction at once (rows in lane order): written through to L2, then
        the writer's lines refreshed, which leaves the state lane-by-lane stores leave. False, nothing done,
        when the per-lane path must run (delayed write paths, or `GlobalMemory.scatter` declines)."""
        import numpy as np

        if self.delayed and not self.through:
            return False
        if not self.memory.scatter(addrs, data, addrs.shape[1]):
            return False
        caches = [c for c in (self.lines.get(self.cu_of(wave)), self.gl1.get(self.array_of(wave))) if c]
        if caches:
            bases = np.unique(addrs.ravel() & np.uint64(~(LINE - 1) & 0xFFFFFFFFFFFFFFFF)).tolist()
            for cache in caches:
                for a in bases:
                    if a in cache:
                        cache[a] = bytearray(self.memory.read(a, LINE))
        return True


def _store_wait(mnemonic: str, text: str, family: str) -> int | None:
    """How many of the wave's stores may still be outstanding after this wait (None: it waits for none).
    Unparsed forms count as 0: draining early is always a behaviour the hardware has."""
    import re

    if family in ("gfx10", "gfx11"):
        if mnemonic != "s_waitcnt_vscnt":
            return None
        nums = re.findall(r"0x[0-9a-fA-F]+|\b\d+\b", text.split(None, 1)[1] if " " in text else "")
        return int(nums[-1], 0) if nums else 0
    if family == "gfx12":
        if mnemonic == "s_wait_storecnt":
            nums = re.findall(r"0x[0-9a-fA-F]+|\b\d+\b", text.split(None, 1)[1] if " " in text else "")
            return int(nums[-1], 0) if nums else 0
        return 0 if mnemonic == "s_wait_storecnt_dscnt" else None
    if mnemonic != "s_waitcnt":
        return None
    m = re.search(r"vmcnt\((\d+)\)", text)
    if m:
        return int(m.group(1))
    operands = text.split(None, 1)[1].strip() if " " in text.strip() else ""
    return 0 if re.fullmatch(r"0x0|0", operands) else None
