"""The emulator's memory budget: every size that comes from an input (a code object's `p_memsz`, a core, a
`--arg` COUNT, a `--grid`) is checked against it *before* anything is allocated.

Why a budget derived from memory: a hostile or mistaken size (a PT_LOAD of 1 TiB, `--arg buf:i32:200000000`)
used to be allocated page by page until the machine ran out (24 GB RSS, then the OOM killer). A fixed
number would either refuse real kernels on a large node or allow an OOM on a small one, so the budget is
half of the smallest of: physical memory, the address-space limit (`ulimit -v`) and the data limit
(`ulimit -d`). `AMDDBG_MEMORY_BUDGET` (bytes, or with a K/M/G suffix) overrides it; the error says which
budget applied and how to raise it. The value depends on the machine's configuration, never on its load.
"""

from __future__ import annotations

import os
import resource

from amddbg.emu.errors import EmulatorError

ENV = "AMDDBG_MEMORY_BUDGET"
# Zero-filled ranges up to this size are allocated at once; larger ones page in as they are touched.
EAGER_MAP = 64 << 20


def _limit(which: int) -> int | None:
    try:
        soft, _hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _parse(text: str) -> int:
    t = text.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    try:
        return int(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise EmulatorError(f"{ENV}={text!r} is not a size (bytes, or a number with K/M/G/T)") from None


def memory_budget() -> tuple[int, str]:
    """(bytes the emulator may allocate for emulated memory, where that number comes from)."""
    env = os.environ.get(ENV)
    if env:
        return _parse(env), f"{ENV}={env}"
    cands: list[tuple[int, str]] = []
    try:
        cands.append((os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "physical memory"))
    except (OSError, ValueError, AttributeError):
        pass
    for res, name in ((resource.RLIMIT_AS, "ulimit -v"), (getattr(resource, "RLIMIT_DATA", None), "ulimit -d")):
        if res is not None and (v := _limit(res)) is not None:
            cands.append((v, name))
    if not cands:
        return 8 << 30, "default"
    size, why = min(cands)
    return size // 2, f"half of {why} ({fmt_size(size)})"


def fmt_size(n: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def check(size: int, what: str) -> None:
    """Raise `EmulatorError` naming `what`, its size and the budget when `size` bytes would not fit."""
    budget, why = memory_budget()
    if size > budget:
        raise EmulatorError(f"{what} needs {fmt_size(size)}, over the emulator's memory budget of "
                            f"{fmt_size(budget)} ({why}; set {ENV} to change it)")
