"""GFX8/GFX9/CDNA family decoder (gfx803 … gfx950, gfx9-generic, gfx9-4-generic).

`Decoder(processor)` decodes bytes into `amddbg.isa.model.Instruction` records with LLVM-syntax text.
"""

from amddbg.isa.gfx9.decoder import Decoder, generation_of

__all__ = ["Decoder", "generation_of"]
