"""Which compiler made a unit, and what its vendor attribute codes and address-space literals mean.

Two facts depend on the producer (see shared/reference/dwarf-heterogeneous.md §2.1, toolchain.md):

* attribute codes 0x3e08..0x3e0c are the heterogeneous lane attributes (active_lane, augmentation,
  lanes, lane_pc, vector_size) in objects from AMD's LLVM fork *before* the 2025 renumbering, but
  the Apple/upstream pointer-auth attributes in everything else; current codes are 0x3e0f..0x3e13;
* the ``DW_OP_xderef`` address-space literal: clang <= 19 (and Debian's clang-15 rocsparse) uses
  clang's own numbers (1 = private, 2 = local); LLVM 22 uses ``DW_ASPACE_*`` (0 global, 1 generic,
  2 region, 3 local, 5 private_lane, 6 private_wave); ``DW_AT_address_class`` on pointers likewise.

Rule for the collision: a unit uses the legacy lane attributes when its producer is AMD's fork
("AMD clang", ROCm "roc-" builds) *and* either its CU DIE carries 0x3e09 as a string (the legacy
``DW_AT_LLVM_augmentation``, e.g. "[llvm:v0.0]", which a pointer-auth flag never is) or the fork's
major version is < 20 (the renumbering landed upstream in 2025-08, LLVM 22 era; INFERRED boundary).
"""

from __future__ import annotations

import re
from collections import namedtuple

from amddbg.dwarf import constants as C

_VERSION = re.compile(r"clang version (\d+)\.(\d+)(?:\.(\d+))?")

# clang's getDWARFAddressSpace numbers (LLVM <= 21) -> amddbg AddressSpace names
OLD_CLANG_ASPACE = {1: "private", 2: "local"}
# llvm::AMDGPU::DWARFAS (LLVM 22 and AMD's fork DW_ASPACE_*)
DW_ASPACE = {0: "global", 1: "generic", 2: "region", 3: "local", 5: "private_lane", 6: "private_wave"}


class ProducerInfo(namedtuple("_P", "producer compiler major minor amd_fork legacy_lane_attrs augmentation")):
    """Compiler facts of one unit; ``compiler`` is "clang", "amd-clang", "gcc" or "unknown"."""

    __slots__ = ()

    @property
    def aspace_numbering(self) -> str:
        """"clang-old" (1 private, 2 local) or "dwarf-aspace" (DW_ASPACE_* numbers)."""
        if self.amd_fork:
            return "dwarf-aspace"
        if self.compiler == "clang" and self.major is not None and self.major >= 22:
            return "dwarf-aspace"
        return "clang-old"

    def xderef_space(self, literal: int) -> str | None:
        """Address-space name for a ``DW_OP_xderef`` literal from this producer (None: unknown)."""
        table = DW_ASPACE if self.aspace_numbering == "dwarf-aspace" else OLD_CLANG_ASPACE
        if self.aspace_numbering == "clang-old" and literal == 0:
            return "generic"
        return table.get(literal)

    def attr_name(self, attr: int) -> str:
        if self.legacy_lane_attrs and attr in C.AMD_LEGACY_ATTRS:
            return "DW_AT_" + C.AMD_LEGACY_ATTRS[attr]
        return C.attr_name(attr)

    def lane_attr(self, role: str) -> int:
        """Attribute code for a heterogeneous attribute role ("lane_pc", "lanes", ...) in this unit."""
        if self.legacy_lane_attrs:
            legacy = {v[5:]: k for k, v in C.AMD_LEGACY_ATTRS.items()}
            if role in legacy:
                return legacy[role]
        return {"lanes": 0x3E11, "lane_pc": 0x3E12, "vector_size": 0x3E13, "address_space": 0x3E10,
                "memory_space": 0x3E0F}.get(role, -1)


def producer_info(producer: str | None, cu_attrs: dict | None = None) -> ProducerInfo:
    p = producer or ""
    m = _VERSION.search(p)
    major = int(m.group(1)) if m else None
    minor = int(m.group(2)) if m else None
    amd = "AMD clang" in p or "roc-" in p or "ROCm" in p or "AMD-LLVM" in p
    compiler = "amd-clang" if amd else ("clang" if "clang" in p else ("gcc" if "GNU" in p else "unknown"))
    aug = None
    legacy = False
    if cu_attrs is not None:
        v = cu_attrs.get(0x3E09)
        if isinstance(v, str):
            aug = v
    if amd:
        legacy = aug is not None or (major is not None and major < 20)
    return ProducerInfo(p, compiler, major, minor, amd, legacy, aug)
