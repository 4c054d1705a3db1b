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

from amddbg.emu.errors import MemoryViolation
from amddbg.target.address_space import private_lane_to_wave

PAGE = 4096
SHARED_APERTURE = 1 << 48
PRIVATE_APERTURE = 2 << 48
APERTURE_MASK = 0xFFFF << 48


class GlobalMemory:
    def __init__(self) -> None:
        self.pages: dict[int, bytearray] = {}
        self.next_alloc = 0x1_0000_0000  # device allocations start at 4 GiB (above any 32-bit value)
        self.version = 0  # bumped by every store (hang detection: memory that can still change)

    def map(self, address: int, size: int) -> None:
        for p in range(address // PAGE, (address + max(size, 1) - 1) // PAGE + 1):
            self.pages.setdefault(p, bytearray(PAGE))

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
            a += n
            i += n

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
    def __init__(self, size: int) -> None:
        self.data = bytearray(size)

    def read(self, address: int, size: int, lane: int) -> bytes:
        if address < 0 or address + size > len(self.data):
            raise MemoryViolation(address, [lane], f"LDS read ({len(self.data)} bytes allocated)")
        return bytes(self.data[address:address + size])

    def write(self, address: int, data: bytes, lane: int) -> None:
        if address < 0 or address + len(data) > len(self.data):
            raise MemoryViolation(address, [lane], f"LDS write ({len(self.data)} bytes allocated)")
        self.data[address:address + len(data)] = data


def classify_flat(address: int) -> tuple[str, int]:
    top = address & APERTURE_MASK
    if top == SHARED_APERTURE:
        return "local", address & 0xFFFFFFFF
    if top == PRIVATE_APERTURE:
        return "private", address & 0xFFFFFFFF
    return "global", address


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
