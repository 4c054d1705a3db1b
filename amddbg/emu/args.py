"""Kernel arguments: `--arg` specs, and the kernarg segment laid out from the code object's metadata.

Scalars ``TYPE:VALUE`` (TYPE one of i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64; VALUE decimal, 0x hex or a
float literal). Buffers ``buf:TYPE:COUNT[:INIT]`` with INIT ``zero`` (default), ``iota``, ``fill=V``,
``values=V1,V2,...`` or ``file=PATH`` (COUNT little-endian elements): the argument receives the device
address of a fresh allocation. Structs passed by value: ``bytes:HEX`` (the argument's bytes, exactly its size in
the metadata) or ``struct:TYPE=V,TYPE=V,...`` (fields in declaration order, each at the next offset its natural
alignment allows, the size rounded up to the largest alignment, as C lays out a plain struct; ``ptr=@NAME`` is the
address of a named buffer of a launch script, amddbg/emu/launch.py). ``@NAME`` alone passes a named buffer's
address. The metadata gives each argument's offset and size, never its fields, so a struct's size is checked against
it and a mismatch is an error naming both layouts. Hidden arguments are filled as ROCr fills them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from amddbg.emu.errors import EmulatorError
from amddbg.emu.limits import check as check_budget

TYPES = {"i8": ("b", 1), "u8": ("B", 1), "i16": ("h", 2), "u16": ("H", 2), "i32": ("i", 4), "u32": ("I", 4),
         "i64": ("q", 8), "u64": ("Q", 8), "f16": ("e", 2), "f32": ("f", 4), "f64": ("d", 8)}
NP = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
      "i64": np.int64, "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64}


STRUCT_TYPES = {**TYPES, "ptr": ("Q", 8)}  # a struct's field types: the scalars and a 64-bit device address


@dataclass
class ArgSpec:
    kind: str  # scalar | buffer | bytes (value: bytes) | struct (value: [(type, value)]) | ref (value: buffer name)
    type: str
    value: object = None
    count: int = 0
    init: str = "zero"
    text: str = ""


def _number(t: str, v: str):
    try:
        if t.startswith("f"):
            return float(v)
        return int(v, 0)
    except ValueError:
        raise EmulatorError(f"--arg: {v!r} is not a {t} value") from None


def _check_range(t: str, val, text: str) -> None:
    if isinstance(val, int) and t != "ptr":
        bits = 8 * TYPES[t][1]
        lo = -(1 << (bits - 1)) if t.startswith("i") else 0
        hi = (1 << bits) - 1 if t.startswith("u") else (1 << (bits - 1)) - 1
        if not lo <= val <= hi and not (t.startswith("i") and 0 <= val < (1 << bits)):
            raise EmulatorError(f"--arg {text!r}: {val} does not fit in {t}")
    elif t == "ptr" and isinstance(val, int) and not 0 <= val < 1 << 64:
        raise EmulatorError(f"--arg {text!r}: {val} is not a 64-bit address")


def parse_struct(text: str) -> ArgSpec:
    """``struct:TYPE=V,...`` -> an ArgSpec of kind struct whose value is [(type, value)] (value: a number, or
    ``@NAME`` for a ptr field)."""
    body = text[len("struct:"):]
    fields = []
    for item in body.split(","):
        t, eq, v = item.strip().partition("=")
        if not eq or t not in STRUCT_TYPES or v == "":
            raise EmulatorError(f"--arg {text!r}: a struct is struct:TYPE=VALUE,... (TYPE: {' '.join(STRUCT_TYPES)}; "
                                f"ptr=@NAME for a named buffer), not {item.strip()!r}")
        if t == "ptr" and v.startswith("@"):
            fields.append((t, v))
            continue
        val = _number("u64" if t == "ptr" else t, v)
        _check_range(t, val, text)
        fields.append((t, val))
    return ArgSpec("struct", "struct", fields, 0, "", text)


def struct_layout(fields: list) -> tuple[list[int], int]:
    """(offset of each field, size) of a plain C struct with these field types in this order."""
    offsets, end, align = [], 0, 1
    for t, _v in fields:
        n = STRUCT_TYPES[t][1]
        end = (end + n - 1) // n * n
        offsets.append(end)
        end += n
        align = max(align, n)
    return offsets, (end + align - 1) // align * align


def describe_layout(fields: list) -> str:
    offsets, size = struct_layout(fields)
    return " ".join(f"{t}@{o}" for (t, _v), o in zip(fields, offsets, strict=True)) + f", {size} bytes"


def parse_arg(text: str) -> ArgSpec:
    if text.startswith("@"):
        if len(text) < 2:
            raise EmulatorError(f"--arg {text!r}: @NAME names a buffer of a launch script")
        return ArgSpec("ref", "ref", text[1:], 0, "", text)
    if text.startswith("struct:"):
        return parse_struct(text)
    if text.startswith("bytes:"):
        digits = "".join(text[len("bytes:"):].replace("_", "").split())
        try:
            raw = bytes.fromhex(digits)
        except ValueError:
            raise EmulatorError(f"--arg {text!r}: bytes:HEX takes hex digits, two per byte") from None
        if not raw:
            raise EmulatorError(f"--arg {text!r}: bytes:HEX needs at least one byte")
        return ArgSpec("bytes", "bytes", raw, 0, "", text)
    parts = text.split(":", 3)
    if parts[0] == "buf":
        if len(parts) < 3:
            raise EmulatorError(f"--arg {text!r}: a buffer is buf:TYPE:COUNT[:INIT]")
        t = parts[1]
        if t not in TYPES:
            raise EmulatorError(f"--arg {text!r}: unknown type {t!r} (have: {' '.join(TYPES)})")
        try:
            count = int(parts[2], 0)
        except ValueError:
            raise EmulatorError(f"--arg {text!r}: COUNT must be an integer") from None
        if not 0 < count <= 1 << 28:
            raise EmulatorError(f"--arg {text!r}: COUNT must be between 1 and 2**28")
        init = parts[3] if len(parts) > 3 else "zero"
        if not (init in ("zero", "iota") or init.startswith(("fill=", "values=", "file="))):
            raise EmulatorError(f"--arg {text!r}: INIT is zero, iota, fill=V, values=V1,... or file=PATH")
        return ArgSpec("buffer", t, None, count, init, text)
    if len(parts) != 2 or parts[0] not in TYPES:
        raise EmulatorError(f"--arg {text!r}: expected TYPE:VALUE (TYPE: {' '.join(TYPES)}), buf:TYPE:COUNT[:INIT], "
                            "struct:TYPE=V,..., bytes:HEX or @NAME")
    val = _number(parts[0], parts[1])
    _check_range(parts[0], val, text)
    return ArgSpec("scalar", parts[0], val, 0, "", text)


def buffer_initial(spec: ArgSpec) -> np.ndarray:
    dt = NP[spec.type]
    n = spec.count
    init = spec.init
    if init == "zero":
        return np.zeros(n, dtype=dt)
    if init == "iota":
        return np.arange(n).astype(dt)
    if init.startswith("fill="):
        return np.full(n, _number(spec.type, init[5:]), dtype=dt)
    if init.startswith("values="):
        vals = [_number(spec.type, v) for v in init[7:].split(",") if v != ""]
        if len(vals) > n:
            raise EmulatorError(f"--arg {spec.text!r}: {len(vals)} values for {n} elements")
        vals += [0] * (n - len(vals))
        if np.dtype(dt).kind in "iu":  # exact: a u64 past 2**63 must not go through float64 (it lost its low bits)
            width = np.dtype(dt).itemsize
            unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
            return np.array([v & ((1 << (8 * width)) - 1) for v in vals], dtype=unsigned).view(dt)
        return np.array(vals).astype(dt)
    path = init[5:]
    from amddbg.textsafe import check_regular

    check_regular(path)
    size = n * TYPES[spec.type][1]
    with open(path, "rb") as f:
        data = f.read(size + 1)
    if len(data) < size:
        raise EmulatorError(f"{path}: file too short: {len(data)} bytes for {n} {spec.type} elements ({size} bytes)")
    return np.frombuffer(data[:size], dtype=dt).copy()


def explicit_args(kernel) -> list:
    meta = kernel.metadata
    args = list(getattr(meta, "args", []) or [])
    return [a for a in args if not str(a.value_kind).startswith("hidden_")]


def _resolve(name: str, named: dict | None, i: int) -> int:
    if not named or name not in named:
        have = ", ".join("@" + n for n in (named or {})) or "none"
        where = "declared" if named is not None else "declared in a launch script (amddbg run --script)"
        raise EmulatorError(f"argument {i}: no buffer named @{name} ({where}; have: {have})")
    return int(named[name]["address"])


def _pack_struct(spec: ArgSpec, a, i: int, named: dict | None) -> bytes:
    offsets, size = struct_layout(spec.value)
    if size != a.size:
        raise EmulatorError(f"argument {i} is a {a.size}-byte by-value argument at kernarg offset {a.offset}; "
                            f"{spec.text} lays out {describe_layout(spec.value)}")
    align = max(STRUCT_TYPES[t][1] for t, _v in spec.value)
    if a.offset % align:  # clang places a by-value argument at its alignment: this is not the kernel's struct
        raise EmulatorError(f"argument {i} is at kernarg offset {a.offset}, where a struct aligned to {align} bytes "
                            f"cannot be; {spec.text} lays out {describe_layout(spec.value)}")
    out = bytearray(size)
    for (t, v), off in zip(spec.value, offsets, strict=True):
        if t == "ptr" and isinstance(v, str):
            v = _resolve(v[1:], named, i)
        _pack_number(out, off, t, v)
    return bytes(out)


def _pack_number(out: bytearray, offset: int, t: str, v) -> None:
    """Write one scalar of type `t` (a TYPES or STRUCT_TYPES name) at `offset`; a signed type accepts its unsigned
    spelling too (``i32:0xffffffff`` is -1), as _check_range allowed it."""
    fmt, n = STRUCT_TYPES[t]
    if isinstance(v, int) and fmt.islower() and v >= 1 << (8 * n - 1):
        v -= 1 << (8 * n)
    struct.pack_into("<" + fmt, out, offset, v)


def lay_out_kernargs(machine, kernel, specs, *, grid, block, queue, packet, size, dynamic_lds=0, named=None):
    """(kernarg bytes, buffer descriptions) for a dispatch. `named`: buffer name -> {"address", ...} for ``@NAME``
    arguments and struct fields (a launch script's buffers)."""
    specs = [s if isinstance(s, ArgSpec) else parse_arg(s) for s in specs]
    meta = kernel.metadata
    args = list(getattr(meta, "args", []) or []) if meta is not None else []
    explicit = [a for a in args if not str(a.value_kind).startswith("hidden_")]
    if len(specs) != len(explicit):
        kinds = ", ".join(f"{a.value_kind}:{a.size}" for a in explicit)
        raise EmulatorError(f"kernel {kernel.name} takes {len(explicit)} explicit argument(s) ({kinds}); "
                            f"{len(specs)} --arg given")
    # a buffer is held three times while it is laid out (the initial array, its bytes, emulated memory;
    # measured: 200,000,000 i32 peak at 2.4 GB RSS): checked against the budget before the first allocation
    need = sum(s.count * TYPES[s.type][1] for s in specs if s.kind == "buffer")
    check_budget(3 * need, "the --arg buffers (" + ", ".join(s.text for s in specs if s.kind == "buffer")
                 + f": {need} bytes, held three times while laid out)")
    end = max([a.offset + a.size for a in args] + [size, 0])
    buf = bytearray(end)
    buffers = []
    for i, (a, s) in enumerate(zip(explicit, specs, strict=True)):
        pointer = a.value_kind == "global_buffer"
        if s.kind == "ref":
            if a.size != 8:
                raise EmulatorError(f"argument {i} is {a.size} bytes ({a.value_kind}); @{s.value} is an 8-byte address")
            struct.pack_into("<Q", buf, a.offset, _resolve(s.value, named, i))
        elif pointer or (a.value_kind == "by_value" and s.kind == "buffer"):
            if s.kind != "buffer":
                raise EmulatorError(f"argument {i} is a pointer (global_buffer): give buf:TYPE:COUNT[:INIT]")
            arr = buffer_initial(s)
            addr = machine.memory.alloc(arr.nbytes)
            machine.memory.write(addr, arr.tobytes())
            if a.size != 8:
                raise EmulatorError(f"argument {i}: a {a.size}-byte pointer is not supported")
            struct.pack_into("<Q", buf, a.offset, addr)
            buffers.append({"arg": i, "type": s.type, "address": addr, "count": s.count})
        elif s.kind == "bytes":
            if len(s.value) != a.size:
                raise EmulatorError(f"argument {i} is {a.size} bytes (by value at kernarg offset {a.offset}); "
                                    f"{s.text[:40]} gives {len(s.value)}")
            buf[a.offset:a.offset + a.size] = s.value
        elif s.kind == "struct":
            buf[a.offset:a.offset + a.size] = _pack_struct(s, a, i, named)
        else:
            if s.kind != "scalar":
                raise EmulatorError(f"argument {i} is passed by value ({a.size} bytes): give TYPE:VALUE, "
                                    "struct:TYPE=V,... or bytes:HEX")
            n = TYPES[s.type][1]
            if n != a.size:
                hint = "; a struct is struct:TYPE=V,... or bytes:HEX" if a.size not in (1, 2, 4, 8) else ""
                raise EmulatorError(f"argument {i} is {a.size} bytes; {s.type} is {n}{hint}")
            _pack_number(buf, a.offset, s.type, s.value)
    counts = [(grid[d] + block[d] - 1) // block[d] for d in range(3)]
    remainders = [grid[d] % block[d] for d in range(3)]
    dims = 3 if grid[2] > 1 else 2 if grid[1] > 1 else 1
    for a in args:
        k = str(a.value_kind)
        fill = None
        if k.startswith("hidden_block_count_"):
            fill = ("I", counts["xyz".index(k[-1])])
        elif k.startswith("hidden_group_size_"):
            fill = ("H", block["xyz".index(k[-1])])
        elif k.startswith("hidden_remainder_"):
            fill = ("H", remainders["xyz".index(k[-1])])
        elif k.startswith("hidden_global_offset_"):
            fill = ("Q", 0)
        elif k == "hidden_grid_dims":
            fill = ("H", dims)
        elif k == "hidden_dynamic_lds_size":
            fill = ("I", dynamic_lds)
        elif k == "hidden_queue_ptr":
            fill = ("Q", queue)
        elif k in ("hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_heap_v1", "hidden_default_queue",
                   "hidden_completion_action", "hidden_multigrid_sync_arg"):
            fill = ("Q", machine.memory.alloc(4096))  # present but empty
        elif k == "hidden_private_base":
            fill = ("I", 0x20000)
        elif k == "hidden_shared_base":
            fill = ("I", 0x10000)
        if fill is not None and a.offset + struct.calcsize("<" + fill[0]) <= len(buf):
            struct.pack_into("<" + fill[0], buf, a.offset, fill[1])
    return bytes(buf), buffers


def read_buffer(machine, b: dict) -> list:
    dt = NP[b["type"]]
    n = b["count"]
    raw = machine.memory.read(b["address"], n * np.dtype(dt).itemsize)
    arr = np.frombuffer(raw, dtype=dt)
    if b["type"].startswith("f"):
        return [float(x) for x in arr.tolist()]
    return [int(x) for x in arr.tolist()]


# -- launch arguments shared by the faces that launch kernels (`amddbg run`, `amddbg divergence`, the REPL's
# `divergence`): parsing them is about kernel launches, so it lives here rather than in one of the faces.
def parse_dims(text: str, what: str) -> tuple[int, int, int]:
    """``X[,Y[,Z]]`` positive integers -> (x, y, z); `what` names the option in the error (grid, block)."""
    from amddbg.errors import UsageError

    try:
        parts = [int(x, 0) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--{what} {text!r}: expected X[,Y[,Z]] positive integers") from None
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise UsageError(f"--{what} {text!r}: expected X[,Y[,Z]] positive integers")
    return tuple(parts + [1] * (3 - len(parts)))


def nonnegative_int(text: str) -> int:
    """argparse type for byte counts: an integer >= 0."""
    import argparse

    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return n


def positive_int(text: str) -> int:
    """argparse type for counts: an integer >= 1 (`--max-instructions -1` was accepted and ran unbounded)."""
    import argparse

    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive count")
    return n


def add_launch_arguments(p, *, codeobj: bool = True, default_limit: int | None = None, script: bool = False) -> None:
    """The options of one kernel launch: code object, kernel, grid, block, arguments, dynamic LDS, globals, limits
    and seed (`default_limit`: the command's --max-instructions default, for its help). `script`: the command also
    takes `--script FILE` instead (then --kernel/--grid/--block are checked by the command, not argparse)."""
    if codeobj:
        p.add_argument("codeobj", metavar="CODEOBJ", **({"nargs": "?"} if script else {}))
    p.add_argument("--kernel", required=not script, metavar="NAME", help="kernel symbol or demangled name")
    p.add_argument("--grid", required=not script, metavar="X[,Y[,Z]]", help="work-items per dimension")
    p.add_argument("--block", required=not script, metavar="X[,Y[,Z]]", help="workgroup size")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="TYPE:VALUE, buf:TYPE:COUNT[:zero|iota|fill=V|values=..|file=PATH], struct:TYPE=V,... or "
                        "bytes:HEX (a struct passed by value), in argument order")
    p.add_argument("--dynamic-lds", type=nonnegative_int, default=0, metavar="BYTES",
                   help="dynamic LDS per workgroup for extern __shared__ arrays (hipLaunchKernelGGL's sharedMemBytes)")
    p.add_argument("--cluster", default=None, metavar="X[,Y[,Z]]",
                   help="workgroups per cluster (GFX12.5) for a kernel without __cluster_dims__, as HIP's cluster "
                        "launch attribute; a kernel with them is dispatched in its clusters without this option")
    p.add_argument("--global", dest="globals", action="append", default=[], metavar="NAME=TYPE:COUNT[:INIT]",
                   help="set a __device__/__constant__ global first (mangled or demangled name; its size must "
                        "match; without INIT it keeps the code object's value); --json reports its final values")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--max-instructions", type=positive_int, default=None, metavar="N",
                   help="stop after N wave-instructions (N >= 1)" + (
                       f"; default {default_limit:,}, status limit" if default_limit else ""))
    p.add_argument("--seed", type=int, default=0, metavar="N")
    p.add_argument("--stack-size", type=int, default=None, metavar="BYTES",
                   help="stack per work-item for a kernel with a dynamic stack (recursion, indirect calls), as "
                        "hipDeviceSetLimit(hipLimitStackSize) sets it; default 1024, HIP's")
