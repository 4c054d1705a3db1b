"""The generated opcode tables (`tables/<set>.json`) and the decoder's internal "not an instruction" signal.

Both the decoder (amddbg.isa.gfx10.decoder) and the operand-syntax helpers it calls (amddbg.isa.gfx10.special:
hwreg and message names per generation, DPP/SDWA controls that reject an encoding) need them; here they depend on
neither, so the two modules import one way (decoder -> special).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

_TABLES = Path(__file__).with_name("tables")


@cache
def load_tables(gen: str) -> dict:
    """The opcode table set `gen` (read once per process)."""
    return json.loads((_TABLES / f"{gen}.json").read_text())


class UnknownEncoding(Exception):  # noqa: N818 - a decoding signal, caught inside the decoder
    """Internal: the bytes are not an instruction this decoder knows (becomes `.long`)."""
