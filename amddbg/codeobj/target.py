"""Decode an AMDGPU ELF header (EI_OSABI, EI_ABIVERSION, e_flags) into a target.

Per the manual's "ELF Header" tables: the code object version comes from EI_ABIVERSION for the HSA OS
ABI; e_flags hold the processor (EF_AMDGPU_MACH, low byte) and the xnack/sramecc settings, encoded as
single "on" bits in V3 and as two-bit unsupported/any/off/on fields in V4 and later; the high byte is the
generic code object version for generic processors (V6+).
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.codeobj.processors import BY_MACH, RESERVED_MACH, Processor

ELFOSABI_NONE = 0
ELFOSABI_AMDGPU_HSA = 64
ELFOSABI_AMDGPU_PAL = 65
ELFOSABI_AMDGPU_MESA3D = 66

OS_ABI_NAMES = {ELFOSABI_NONE: "unknown", ELFOSABI_AMDGPU_HSA: "amdhsa", ELFOSABI_AMDGPU_PAL: "amdpal",
                ELFOSABI_AMDGPU_MESA3D: "mesa3d"}

# EI_ABIVERSION -> code object version, for the amdhsa OS ABI.
HSA_CODE_OBJECT_VERSIONS = {0: 2, 1: 3, 2: 4, 3: 5, 4: 6}

EF_AMDGPU_MACH = 0x0FF
EF_AMDGPU_FEATURE_XNACK_V2 = 0x01
EF_AMDGPU_FEATURE_TRAP_HANDLER_V2 = 0x02
EF_AMDGPU_FEATURE_XNACK_V3 = 0x100
EF_AMDGPU_FEATURE_SRAMECC_V3 = 0x200
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
EF_AMDGPU_GENERIC_VERSION = 0xFF000000

# Two-bit V4+ setting -> our name. "unsupported" and "any" do not appear in a target ID.
_V4_SETTING = {0: "unsupported", 1: "any", 2: "off", 3: "on"}


@dataclass(frozen=True, slots=True)
class Target:
    processor: Processor | None
    processor_name: str  # also set for unknown/reserved mach values, e.g. "<unknown mach 0x7e>"
    os_abi: str
    code_object_version: int | None
    xnack: str  # "unsupported" | "any" | "off" | "on"
    sramecc: str
    generic_version: int | None
    trap_handler: bool | None = None  # V2 only

    @property
    def features(self) -> dict[str, str]:
        return {"sramecc": self.sramecc, "xnack": self.xnack}

    @property
    def target_id(self) -> str:
        """Canonical target ID, e.g. ``amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+``.

        Features appear in alphabetical order, only when explicitly on (+) or off (-).
        """
        arch = self.processor.arch if self.processor else "amdgcn"
        os_name = "" if self.os_abi == "unknown" else self.os_abi
        parts = [f"{arch}-amd-{os_name}--{self.processor_name}"]
        for name, setting in sorted(self.features.items()):
            if setting == "on":
                parts.append(f"{name}+")
            elif setting == "off":
                parts.append(f"{name}-")
        return ":".join(parts)


def decode_target(os_abi: int, abi_version: int, e_flags: int, *, v2_processor: Processor | None = None) -> Target:
    """Decode the header fields. `v2_processor` comes from the NT_AMD_HSA_ISA_VERSION note for V2."""
    os_name = OS_ABI_NAMES.get(os_abi, f"os-abi-{os_abi}")
    version = HSA_CODE_OBJECT_VERSIONS.get(abi_version) if os_abi == ELFOSABI_AMDGPU_HSA else None
    if version == 2:
        proc = v2_processor
        xnack = "on" if e_flags & EF_AMDGPU_FEATURE_XNACK_V2 else ("off" if proc and proc.xnack else "unsupported")
        return Target(proc, proc.name if proc else "<unknown: no ISA note>", os_name, 2, xnack,
                      "unsupported", None, bool(e_flags & EF_AMDGPU_FEATURE_TRAP_HANDLER_V2))
    mach = e_flags & EF_AMDGPU_MACH
    proc = BY_MACH.get(mach)
    if proc is not None:
        name = proc.name
    elif mach in RESERVED_MACH:
        name = f"<reserved mach {mach:#x}>"
    else:
        name = f"<unknown mach {mach:#x}>"
    if version == 3:
        xnack = "on" if e_flags & EF_AMDGPU_FEATURE_XNACK_V3 else ("off" if proc and proc.xnack else "unsupported")
        sramecc = "on" if e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 else (
            "off" if proc and proc.sramecc else "unsupported")
    else:
        xnack = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8]
        sramecc = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10]
    generic = (e_flags & EF_AMDGPU_GENERIC_VERSION) >> 24 or None
    return Target(proc, name, os_name, version, xnack, sramecc, generic)
