"""`__device__` and `__constant__` globals of a dispatch: found by symbol, given initial values, read back.

A HIP program sets these with hipMemcpyToSymbol before a launch (a `__constant__` coefficient table, a counter
reset to zero) and reads them back with hipMemcpyFromSymbol; both live in the code object's loaded segments
(.data, .bss, .rodata), at the load address plus the symbol's value. `--global NAME=TYPE:COUNT[:INIT]` names the
symbol (mangled, or demangled as the source spells it: `dsp::fir_taps`), gives its element type and count, which
must fill the symbol's size exactly (a mismatch is usually the wrong type: f64 for f32), and its initial value
with the INIT forms of a buffer (`zero`, `iota`, `fill=V`, `values=...`, `file=PATH`); without INIT the global keeps
what the code object's loader put there (its initializer, or zeros), so `--global NAME=TYPE:COUNT` only reports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.emu.args import NP, TYPES, ArgSpec, buffer_initial
from amddbg.emu.errors import EmulatorError, MemoryViolation


@dataclass(frozen=True)
class GlobalSpec:
    name: str
    type: str
    count: int
    init: str | None  # None: keep the code object's initial value
    text: str


def parse_global(text: str) -> GlobalSpec:
    """``NAME=TYPE:COUNT[:INIT]`` -> GlobalSpec."""
    name, eq, rest = text.partition("=")
    name = name.strip()
    form = "--global NAME=TYPE:COUNT[:zero|iota|fill=V|values=V1,...|file=PATH]"
    if not eq or not name:
        raise EmulatorError(f"--global {text!r}: expected {form}")
    parts = rest.split(":", 2)
    if len(parts) < 2 or parts[0] not in TYPES:
        raise EmulatorError(f"--global {text!r}: expected {form} (TYPE: {' '.join(TYPES)})")
    try:
        count = int(parts[1], 0)
    except ValueError:
        raise EmulatorError(f"--global {text!r}: COUNT must be an integer") from None
    if not 0 < count <= 1 << 28:
        raise EmulatorError(f"--global {text!r}: COUNT must be between 1 and 2**28")
    init = parts[2] if len(parts) > 2 else None
    if init is not None and not (init in ("zero", "iota") or init.startswith(("fill=", "values=", "file="))):
        raise EmulatorError(f"--global {text!r}: INIT is zero, iota, fill=V, values=V1,... or file=PATH")
    return GlobalSpec(name, parts[0], count, init, text)


def _variables(co) -> list:
    return [s for s in co.symbols() if s.kind == "object" and not s.name.startswith("__hip_cuid_")]


def find_global(co, name: str):
    """The object symbol `name` names (its mangled name, or its demangled name with or without a leading ::)."""
    from amddbg.dwarf.demangle import demangle

    want = name.removeprefix("::")
    syms = co.symbols()
    hits = [s for s in _variables(co) if s.name == want or (demangle(s.name) or s.name) == want]
    if not hits:
        other = next((s for s in syms if s.name == want or (demangle(s.name) or s.name).split("(")[0] == want), None)
        if other is not None and other.kind == "lds":
            raise EmulatorError(f"--global {name}: a __shared__ (LDS) variable, which each workgroup has its own of; "
                                "--global sets __device__ and __constant__ globals")
        if other is not None:
            raise EmulatorError(f"--global {name}: {other.name} is a {other.kind.replace('_', ' ')}, not a variable")
        have = ", ".join(sorted({demangle(s.name) or s.name for s in _variables(co)})) or "none"
        raise EmulatorError(f"--global {name}: no such global in the code object (have: {have})")
    if len({(s.address, s.size) for s in hits}) > 1:
        raise EmulatorError(f"--global {name}: {len(hits)} globals have this name (" +
                            ", ".join(f"{s.name} at {s.address:#x}" for s in hits) + "): give the mangled name")
    return hits[0]


def place_globals(machine, specs) -> list[dict]:
    """Find each global, check its size, write its initial value into the machine's memory; the placed globals
    ({"name", "symbol", "type", "count", "address"}), which `read_globals` reads back."""
    placed = []
    for spec in specs:
        if not isinstance(spec, GlobalSpec):
            spec = parse_global(spec)
        sym = find_global(machine.co, spec.name)
        elem = TYPES[spec.type][1]
        if spec.count * elem != sym.size:
            fits = f" ({sym.size // elem} {spec.type} would fill it)" if sym.size % elem == 0 and sym.size else ""
            raise EmulatorError(f"--global {spec.text}: {sym.name} is {sym.size} bytes; {spec.type}:{spec.count} is "
                                f"{spec.count * elem} bytes{fits}")
        address = machine.load + sym.address
        try:
            if spec.init is not None:
                arr = buffer_initial(ArgSpec("buffer", spec.type, None, spec.count, spec.init, spec.text))
                machine.memory.write(address, arr.tobytes())
            else:
                machine.memory.read(address, sym.size)
        except MemoryViolation:
            raise EmulatorError(f"--global {spec.name}: {sym.name} at {sym.address:#x} is not in a loaded segment "
                                "of the code object") from None
        placed.append({"name": spec.name, "symbol": sym.name, "type": spec.type, "count": spec.count,
                       "address": address})
    return placed


def read_globals(machine, placed: list[dict]) -> list[dict]:
    """Each placed global's current values: [{"name", "symbol", "type", "address", "values"}]."""
    import numpy as np

    out = []
    for g in placed:
        dt = NP[g["type"]]
        arr = np.frombuffer(machine.memory.read(g["address"], g["count"] * np.dtype(dt).itemsize), dtype=dt)
        values = [float(x) for x in arr.tolist()] if g["type"].startswith("f") else [int(x) for x in arr.tolist()]
        out.append({"name": g["name"], "symbol": g["symbol"], "type": g["type"],
                    "address": f"{g['address']:#x}", "values": values})
    return out
