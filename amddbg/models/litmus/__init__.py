"""Litmus front ends: Khronos Vulkan-MemoryModel `.test` and Dat3M/herd-style VULKAN `.litmus`.

`load(path)` picks the front end from the file name (and content) and returns a parsed test that
`amddbg.models.verdict.decide` turns into a verdict. Unsupported syntax raises `FormatError` naming
the construct, the file and the line.
"""

from __future__ import annotations

from pathlib import Path

from amddbg.errors import FormatError

MAX_LITMUS_BYTES = 1 << 20  # litmus tests are a few hundred bytes; a bound keeps /dev/zero-like inputs out


def load(path: str | Path, text: str | None = None):
    p = Path(path)
    if text is None:
        from amddbg.textsafe import open_regular

        with open_regular(p, what="litmus file") as f:
            data = f.read(MAX_LITMUS_BYTES + 1)
        if len(data) > MAX_LITMUS_BYTES:
            raise FormatError(f"litmus file larger than {MAX_LITMUS_BYTES >> 20} MiB", file=str(path))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError("litmus file is not UTF-8 text", file=str(path)) from None
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("//")),
                 "")
    if p.suffix == ".litmus" or first.split(" ")[0].upper() == "VULKAN":
        from amddbg.models.litmus.herd import parse
    elif p.suffix == ".test":
        from amddbg.models.litmus.khronos import parse
    else:
        raise FormatError("unknown litmus format (expected a Khronos .test or a VULKAN .litmus file)",
                          file=str(path))
    return parse(text, str(path))
