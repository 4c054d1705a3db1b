"""Memory of the emulated agent: sparse page-mapped global memory, LDS per workgroup, scratch per wave.

Global memory is a dict of 4 KiB pages; touching an unmapped page is a memory violation naming the address
and the lanes. Scratch (private) memory is ordinary global memory owned by a wave (as on hardware: the
queue's scratch backing store), addressed per lane through the private_lane -> private_wave dword swizzle;
LDS is a bytearray per workgroup. Flat (generic) addresses are classified by the apertures
(shared 1 << 48, private 2 << 48, as `src_shared_base` / `src_private_base` report them).

This first model is coherent (every store is visible to every later load); the scope-aware cache model of
issue 10 plugs in as a layer over `GlobalMemory` (see docs/emulator.md).
"""

from __future__ import annotations

import numpy as np

from amddbg.amdgpu.address_space import private_lane_to_wave
from amddbg.emu.errors import MemoryViolation
from amddbg.emu.limits import EAGER_MAP, check

PAGE = 4096
_PAGE_SHIFT = np.uint64(12)
_PAGE_MASK = np.uint64(PAGE - 1)
SHARED_APERTURE = 1 << 48
PRIVATE_APERTURE = 2 << 48
APERTURE_MASK = 0xFFFF << 48


class _LazyPages(dict):
    """`GlobalMemory.pages` once a zero-filled range too large to allocate at once is mapped: a page of such
    a range is allocated the first time it is looked up. A plain dict otherwise (the hot path stays C)."""

    def __init__(self, memory: GlobalMemory, pages: dict) -> None:
        super().__init__(pages)
        self._memory = memory

    def get(self, key, default=None):
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            page = self._memory.zero_page(key)
            return default if page is None else page

    def __missing__(self, key):
        page = self._memory.zero_page(key)
        if page is None:
            raise KeyError(key)
        return page

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or self._memory.in_zero_range(key)


class GlobalMemory:
    def __init__(self) -> None:
        self.pages: dict[int, bytearray] = {}
        self.zero_ranges: list[tuple[int, int]] = []  # [first page, end page) mapped but not yet allocated
        self.lazy_pages = 0  # pages allocated from zero_ranges (bounded by the memory budget)
        self.next_alloc = 0x1_0000_0000  # device allocations start at 4 GiB (above any 32-bit value)
        self.version = 0  # bumped by every store (hang detection: memory that can still change)
        self.dirty: set[int] = set()  # pages changed since the last content_digest()
        self._page_digest: dict[int, int] = {}
        self._digest = 0

    def map(self, address: int, size: int) -> None:
        """Map `size` zero bytes at `address`. Up to `limits.EAGER_MAP` they are allocated now; a larger range
        (a code object's PT_LOAD whose p_memsz says 1 TiB) is recorded and its pages are allocated as they are
        touched, within the memory budget, so what is mapped costs only what is used."""
        first, end = address // PAGE, (address + max(size, 1) - 1) // PAGE + 1
        if (end - first) * PAGE <= EAGER_MAP:
            for p in range(first, end):
                self.pages.setdefault(p, bytearray(PAGE))
            return
        self.zero_ranges.append((first, end))
        if not isinstance(self.pages, _LazyPages) and type(self.pages) is dict:
            self.pages = _LazyPages(self, self.pages)

    def in_zero_range(self, key: int) -> bool:
        return any(a <= key < b for a, b in self.zero_ranges)

    def zero_page(self, key: int) -> bytearray | None:
        """Allocate page `key` of a lazily mapped range (None outside every range)."""
        if not self.in_zero_range(key):
            return None
        self.lazy_pages += 1
        if self.lazy_pages % 4096 == 0:  # every 16 MiB touched: still inside the budget?
            check(self.lazy_pages * PAGE, "memory touched in lazily mapped ranges")
        page = bytearray(PAGE)
        dict.__setitem__(self.pages, key, page)
        return page

    def alloc(self, size: int, *, align: int = 256) -> int:
        addr = (self.next_alloc + align - 1) // align * align
        self.map(addr, size)
        self.next_alloc = addr + max(size, 1)
        self.next_alloc = (self.next_alloc + PAGE - 1) // PAGE * PAGE + PAGE  # a guard page after each buffer
        return addr

    def read(self, address: int, size: int, lanes: list[int] | None = None) -> bytes:
        out = bytearray()
        a = address
        end = address + size
        while a < end:
            page = self.pages.get(a // PAGE)
            if page is None:
                raise MemoryViolation(a, lanes or [], "read")
            off = a % PAGE
            n = min(end - a, PAGE - off)
            out += page[off:off + n]
            a += n
        return bytes(out)

    def write(self, address: int, data: bytes, lanes: list[int] | None = None) -> None:
        a = address
        i = 0
        while i < len(data):
            page = self.pages.get(a // PAGE)
            if page is None:
                raise MemoryViolation(a, lanes or [], "write")
            off = a % PAGE
            n = min(len(data) - i, PAGE - off)
            if page[off:off + n] != data[i:i + n]:
                page[off:off + n] = data[i:i + n]
                self.version += 1  # only a real change counts: rewriting the same value is no progress
                self.dirty.add(a // PAGE)
            a += n
            i += n

    # -- whole-instruction access (the vectorised fast path of the memory instructions) -------------------------
    def gather(self, addrs: np.ndarray) -> np.ndarray | None:
        """The byte at each of `addrs` (uint64, any shape) as uint8 of the same shape, or None when one of them
        is on an unmapped page: the caller then replays the access lane by lane, which reports the fault with
        the address and lane exactly as `read` does. Reading has no side effect, so the fallback is exact."""
        flat = addrs.ravel()
        pages = flat >> _PAGE_SHIFT
        offs = (flat & _PAGE_MASK).astype(np.intp)
        p0 = int(pages[0])
        if p0 == int(pages[-1]) and (pages == pages[0]).all():  # the common case: one page
            page = self.pages.get(p0)
            if page is None:
                return None
            return np.frombuffer(page, dtype=np.uint8)[offs].reshape(addrs.shape)
        up, inv = np.unique(pages, return_inverse=True)
        bufs = []
        for p in up.tolist():
            page = self.pages.get(p)
            if page is None:
                return None
            bufs.append(page)
        stacked = np.frombuffer(b"".join(bufs), dtype=np.uint8)
        return stacked[inv.reshape(-1) * PAGE + offs].reshape(addrs.shape)

    def dword_view(self, address: int, count: int) -> np.ndarray | None:
        """A writable uint32 view of `count` dwords at 4-aligned `address`, or None when they are not all on one
        mapped page (the caller then goes lane by lane). Scratch accessed at one private address by every lane is
        exactly such a run (the dword swizzle puts the lanes side by side)."""
        off = address & (PAGE - 1)
        if off + 4 * count > PAGE:
            return None
        page = self.pages.get(address >> 12)
        if page is None:
            return None
        return np.frombuffer(page, dtype="<u4", count=count, offset=off)

    def note_written(self, address: int, changed: int) -> None:
        """Account for `changed` dword writes through `dword_view` that changed bytes, as `write` counts them."""
        if changed:
            self.version += changed
            self.dirty.add(address // PAGE)

    def scatter(self, addrs: np.ndarray, data: np.ndarray, chunk: int) -> bool:
        """Store uint8 `data` at `addrs` (same shape, rows in lane order) as `write` calls of `chunk` bytes each
        (consecutive bytes of a row) would, with the same `version` and `dirty` accounting. Returns False and
        writes nothing when a page is unmapped, a chunk crosses a page or a byte is written twice (the caller
        then writes lane by lane: the fault or the last writer come out exactly as before)."""
        flat = addrs.ravel()
        vals = data.ravel()
        pages = flat >> _PAGE_SHIFT
        per_chunk = pages.reshape(-1, chunk)
        if chunk > 1 and (per_chunk != per_chunk[:, :1]).any():
            return False
        if flat.size > 1 and _repeats(flat):
            return False
        offs = (flat & _PAGE_MASK).astype(np.intp)
        p0 = int(pages[0])
        if (pages == pages[0]).all():
            groups = [(p0, None)]
        else:
            up, inv = np.unique(pages, return_inverse=True)
            inv = inv.reshape(-1)
            groups = [(p, inv == i) for i, p in enumerate(up.tolist())]
        views = []
        for p, sel in groups:
            page = self.pages.get(p)
            if page is None:
                return False
            views.append((np.frombuffer(page, dtype=np.uint8), sel))
        changed = np.empty(flat.size, dtype=bool)
        for view, sel in views:
            if sel is None:
                changed[:] = view[offs] != vals
                view[offs] = vals
            else:
                o, v = offs[sel], vals[sel]
                changed[sel] = view[o] != v
                view[o] = v
        ch = changed.reshape(-1, chunk).any(axis=1)
        n = int(np.count_nonzero(ch))
        if n:
            self.version += n  # one per write that changed bytes, as `write` counts
            self.dirty.update(np.unique(per_chunk[ch, 0]).tolist())
        return True

    def content_digest(self) -> int:
        """A digest of every page's bytes, updated for the pages written since the last call: two equal digests
        mean equal memory (hang detection must compare contents — a loop that keeps rewriting a spill slot with
        alternating values changes memory every iteration yet repeats its state)."""
        import hashlib

        for p in self.dirty:
            page = self.pages.get(p)
            new = int.from_bytes(hashlib.blake2b(bytes(page) + p.to_bytes(8, "little"), digest_size=16).digest(),
                                 "little") if page is not None else 0
            self._digest ^= self._page_digest.get(p, 0) ^ new
            self._page_digest[p] = new
        self.dirty.clear()
        return self._digest

    def segments(self):
        """Contiguous mapped ranges as (address, bytes), for writing a core."""
        keys = sorted(self.pages)
        i = 0
        while i < len(keys):
            j = i
            while j + 1 < len(keys) and keys[j + 1] == keys[j] + 1:
                j += 1
            yield keys[i] * PAGE, b"".join(bytes(self.pages[k]) for k in keys[i:j + 1])
            i = j + 1


class LDS:
    """One workgroup's LDS. `size` is what the dispatch asked for (the kernel's group segment plus dynamic LDS);
    the hardware allocates it in granules (`allocated`, ldsbounds.allocation), so an access past `size` but inside
    the allocation reads and writes the granule's padding, and one past the allocation reads 0 and writes nothing
    instead of faulting. Every access past `size` is reported to `note(kind, address, nbytes, lane)` first (a
    kernel that does it has a bug even when it does not crash)."""

    def __init__(self, size: int, allocated: int | None = None, note=None) -> None:
        self.size = size
        self.data = bytearray(max(size, allocated or 0))
        self.note = note
        self.writes = 0  # stores that changed bytes (hang detection: LDS that can still change)
        self._digest: tuple[int, bytes] | None = None  # (writes, digest) of the contents at that count

    def digest(self) -> bytes:
        """A digest of the contents, recomputed only when a store changed bytes since the last one (every
        path that changes `data` after the dispatch counts in `writes`)."""
        d = self._digest
        if d is None or d[0] != self.writes:
            import hashlib

            d = self._digest = (self.writes, hashlib.blake2b(self.data, digest_size=8).digest())
        return d[1]

    def read(self, address: int, size: int, lane: int) -> bytes:
        if address < 0 or address + size > self.size:
            if self.note is None:
                raise MemoryViolation(address, [lane], f"LDS read ({self.size} bytes allocated)")
            self.note("read", address, size, lane)
            got = bytes(self.data[address:address + size])  # (bytes past the allocation read 0)
            return got + bytes(size - len(got))
        return bytes(self.data[address:address + size])

    def write(self, address: int, data: bytes, lane: int) -> None:
        if address < 0 or address + len(data) > self.size:
            if self.note is None:
                raise MemoryViolation(address, [lane], f"LDS write ({self.size} bytes allocated)")
            self.note("write", address, len(data), lane)
            data = data[:max(0, len(self.data) - address)]  # (bytes past the allocation are dropped)
            if not data:
                return
        if self.data[address:address + len(data)] != data:
            self.data[address:address + len(data)] = data
            self.writes += 1

    def gather(self, addrs: np.ndarray) -> np.ndarray | None:
        """The bytes at `addrs` (int64, any shape), or None when one is outside the allocation (the caller then
        replays the access lane by lane, which reports the violation exactly as `read` does)."""
        if addrs.size and (int(addrs.min()) < 0 or int(addrs.max()) >= self.size):
            return None
        return np.frombuffer(self.data, dtype=np.uint8)[addrs]

    def scatter(self, addrs: np.ndarray, data: np.ndarray) -> bool:
        """Store `data` at `addrs` (same shape, rows in lane order; a byte written twice keeps the last row's
        value, as lane-ordered `write` calls leave it); False, nothing written, when one is out of range."""
        if addrs.size and (int(addrs.min()) < 0 or int(addrs.max()) >= self.size):
            return False
        flat = addrs.ravel()
        vals = data.ravel()
        if flat.size > 1 and _repeats(flat):  # keep the last write of each byte
            rev = flat[::-1]
            flat, first = np.unique(rev, return_index=True)
            vals = vals[::-1][first]
        view = np.frombuffer(self.data, dtype=np.uint8)
        if not np.array_equal(view[flat], vals):
            view[flat] = vals
            self.writes += 1
        return True


def _repeats(flat: np.ndarray) -> bool:
    """Whether an address occurs twice (a sort and one comparison: np.unique costs five times as much here)."""
    s = np.sort(flat)
    return bool((s[1:] == s[:-1]).any())


def classify_flat(address: int) -> tuple[str, int]:
    top = address & APERTURE_MASK
    if top == SHARED_APERTURE:
        return "local", address & 0xFFFFFFFF
    if top == PRIVATE_APERTURE:
        return "private", address & 0xFFFFFFFF
    return "global", address


# GFX12.5 (gfx1250) has globally accessible scratch: clang-22 casts a private pointer to a flat one as
# `{lo: offset, hi: lane << 20} + src_flat_scratch_base` (the lane in bits 52-56, under the 57-bit scratch aperture
# amdkfd sets up for GFX12.1). The emulator's base for a wave is its private aperture plus the wave's dispatch index
# (mod 65536) in bits 32-47, so a flat scratch address names (wave, lane, offset): an access can tell whose it is.
SCRATCH_LANE_SHIFT = 52
SCRATCH_LANE_FIELD = 0x1F << SCRATCH_LANE_SHIFT
_SCRATCH_WAVE_FIELD = 0xFFFF << 32  # under the apertures' bits 48-51


def flat_scratch_base(wave) -> int:
    """`src_flat_scratch_base` (gfx1250) of `wave`: the flat address of its lane 0's private byte 0."""
    return PRIVATE_APERTURE | (wave.scratch_id & 0xFFFF) << 32


def scratch_lanes(machine, wave, lanes: np.ndarray, addrs: np.ndarray) -> tuple[np.ndarray, dict]:
    """gfx1250 flat addresses of a load, store or atomic, split by whose scratch they name: (the addresses with the
    accessing lane's own lane/wave fields removed, {lane: (wave, lane, offset)} for the lanes that address another
    lane's or another wave's scratch). The second are accessed in that lane's private memory (`read_private`/
    `write_private` of the named wave and lane: its dword-swizzled slot, bounds checked against its private
    size); a wave field naming no wave of the dispatch stops, naming the address."""
    a = addrs.astype(np.uint64)
    base = a & np.uint64(~(SCRATCH_LANE_FIELD | _SCRATCH_WAVE_FIELD) & ((1 << 64) - 1))
    priv = (base & np.uint64(APERTURE_MASK)) == np.uint64(PRIVATE_APERTURE)
    if not priv.any():
        return a, {}
    field = (a >> np.uint64(SCRATCH_LANE_SHIFT)) & np.uint64(0x1F)
    wave_field = (a >> np.uint64(32)) & np.uint64(0xFFFF)
    other = priv & ((field != lanes.astype(np.uint64)) | (wave_field != np.uint64(wave.scratch_id & 0xFFFF)))
    foreign = {}
    for k in np.nonzero(other)[0].tolist():
        wi = int(wave_field[k])
        target = machine.waves[wi] if wi < len(machine.waves) else None
        if target is None or target.scratch_id & 0xFFFF != wi:  # a replay's waves keep their dispatch's ids
            target = next((x for x in machine.waves if x.scratch_id & 0xFFFF == wi), None)
        if target is None or int(field[k]) >= target.lanes:
            from amddbg.emu.errors import Unsupported

            raise Unsupported(f"flat access to scratch of wave {wi} lane {int(field[k])} (gfx1250 globally "
                              f"accessible scratch, address {int(a[k]):#x} from lane {int(lanes[k])}): no such wave "
                              f"or lane in this dispatch", wave.pc)
        foreign[int(lanes[k])] = (target, int(field[k]), int(base[k]) & 0xFFFFFFFF)
    return np.where(priv, base, a), foreign


def private_address(wave, address: int, lane: int) -> int:
    """Global address of byte `address` of `lane`'s private memory (dword-swizzled per the ABI)."""
    return wave.scratch_base + private_lane_to_wave(address, lane, wave.lanes)


def read_private(mem: GlobalMemory, wave, address: int, size: int, lane: int) -> bytes:
    if address < 0 or address + size > wave.private_size:
        from amddbg.emu.errors import MemoryViolation as MV

        raise MV(address, [lane], f"private read outside the {wave.private_size}-byte private segment")
    if address % 4 == 0 and size % 4 == 0:
        return b"".join(mem.read(private_address(wave, address + k, lane), 4, [lane]) for k in range(0, size, 4))
    return bytes(mem.read(private_address(wave, address + k, lane), 1, [lane])[0] for k in range(size))


def write_private(mem: GlobalMemory, wave, address: int, data: bytes, lane: int) -> None:
    if address < 0 or address + len(data) > wave.private_size:
        raise MemoryViolation(address, [lane], f"private write outside the {wave.private_size}-byte private segment")
    if address % 4 == 0 and len(data) % 4 == 0:
        for k in range(0, len(data), 4):
            mem.write(private_address(wave, address + k, lane), data[k:k + 4], [lane])
        return
    for k, b in enumerate(data):
        mem.write(private_address(wave, address + k, lane), bytes([b]), [lane])


def as_u32_array(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint32)
