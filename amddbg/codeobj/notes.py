"""AMDGPU note records: the msgpack metadata of code object V3+ and the V2 "AMD" notes.

NT_AMDGPU_METADATA (owner "AMDGPU", type 32) holds a msgpack map (`amdhsa.version`, `amdhsa.target`,
`amdhsa.kernels`, ...). Code object V2 used owner "AMD" notes (types 1, 2, 3, 10, 11, 12); they are
identified, and the ISA version note is decoded because V2 headers carry no processor.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import msgpack

from amddbg.errors import FormatError

NT_AMDGPU_METADATA = 32
V2_NOTE_TYPES = {
    1: "NT_AMD_HSA_CODE_OBJECT_VERSION",
    2: "NT_AMD_HSA_HSAIL",
    3: "NT_AMD_HSA_ISA_VERSION",
    10: "NT_AMD_HSA_METADATA",
    11: "NT_AMD_HSA_ISA_NAME",
    12: "NT_AMD_PAL_METADATA",
}


def note_type_name(owner: str, ntype: int) -> str:
    if owner == "AMDGPU" and ntype == NT_AMDGPU_METADATA:
        return "NT_AMDGPU_METADATA"
    if owner == "AMD" and ntype in V2_NOTE_TYPES:
        return V2_NOTE_TYPES[ntype]
    return f"unknown note type {ntype} ({owner})"


def decode_msgpack_metadata(desc: bytes, *, file: str, offset: int) -> dict[str, Any]:
    """Decode the msgpack map of an NT_AMDGPU_METADATA note; malformed data is a FormatError."""
    try:
        value = msgpack.unpackb(desc, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, TypeError) as exc:
        raise FormatError(f"malformed msgpack in NT_AMDGPU_METADATA note ({exc})", file=file, offset=offset) from None
    if not isinstance(value, dict):
        raise FormatError("NT_AMDGPU_METADATA note is not a msgpack map", file=file, offset=offset)
    bad = _unexpected_item(value)
    if bad is not None:
        raise FormatError(f"malformed msgpack in NT_AMDGPU_METADATA note ({bad})", file=file, offset=offset)
    return value


_SCALARS = (str, int, float, bool, bytes, type(None))


def _unexpected_item(value: Any) -> str | None:
    """What the metadata holds that no code object writes (a map key that is not a string or an integer, an
    extension type), or None. The metadata is maps, arrays, strings, integers and booleans; corrupted bytes can
    decode to anything msgpack knows, which JSON output and the typed records cannot take. Iterative: msgpack
    nests deeper than Python recurses."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, msgpack.ExtType):  # (a named tuple: before the arrays)
            return "an extension type"
        if isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, (str, int)):
                    return f"a map key of type {type(k).__name__}"
                stack.append(x)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif not isinstance(v, _SCALARS):
            return f"a value of type {type(v).__name__}"
    return None


@dataclass(frozen=True, slots=True)
class IsaVersionNote:
    vendor: str
    architecture: str
    major: int
    minor: int
    stepping: int


def decode_isa_version(desc: bytes, *, file: str, offset: int) -> IsaVersionNote:
    """NT_AMD_HSA_ISA_VERSION: u16 vendor_name_size, u16 architecture_name_size, u32 major, minor,
    stepping, then the NUL-terminated vendor and architecture names."""
    if len(desc) < 16:
        raise FormatError("truncated NT_AMD_HSA_ISA_VERSION note", file=file, offset=offset)
    vsize, asize, major, minor, stepping = struct.unpack_from("<HHIII", desc, 0)
    names = desc[16:]
    vendor = names[:vsize].rstrip(b"\0").decode("utf-8", "replace")
    arch = names[vsize : vsize + asize].rstrip(b"\0").decode("utf-8", "replace")
    return IsaVersionNote(vendor, arch, major, minor, stepping)


def strip_dots(value: Any) -> Any:
    """Metadata keys start with '.'; the JSON form and typed records use the names without it."""
    if isinstance(value, dict):
        return {(k[1:] if isinstance(k, str) and k.startswith(".") else k): strip_dots(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_dots(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


@dataclass(frozen=True, slots=True)
class KernelArg:
    offset: int | None
    size: int | None
    value_kind: str | None
    address_space: str | None = None
    name: str | None = None
    type_name: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # every key, dots stripped


class KernelMetadata:
    """One entry of `amdhsa.kernels`, typed where the debugger needs it, complete in `fields`.

    Real code objects carry hundreds of kernels with dozens of keys each; the dotted msgpack map is kept
    as decoded and turned into `fields`/`args` only when asked for.
    """

    __slots__ = ("raw", "_fields", "_args")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self._fields: dict[str, Any] | None = None
        self._args: tuple[KernelArg, ...] | None = None

    @property
    def name(self) -> str:
        return str(self.raw.get(".name", ""))

    @property
    def symbol(self) -> str:
        return str(self.raw.get(".symbol", ""))

    @property
    def fields(self) -> dict[str, Any]:
        """Every key of the kernel's map without its leading dot, values as decoded."""
        if self._fields is None:
            self._fields = strip_dots(self.raw)
        return self._fields

    @property
    def args(self) -> tuple[KernelArg, ...]:
        if self._args is None:
            out = []
            for a in self.fields.get("args", []) or []:
                if isinstance(a, dict):
                    out.append(KernelArg(a.get("offset"), a.get("size"), a.get("value_kind"),
                                         a.get("address_space"), a.get("name"), a.get("type_name"), a))
            self._args = tuple(out)
        return self._args

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get("." + key, default)

    @property
    def wavefront_size(self) -> int | None:
        return self.get("wavefront_size")

    @property
    def sgpr_count(self) -> int | None:
        return self.get("sgpr_count")

    @property
    def vgpr_count(self) -> int | None:
        return self.get("vgpr_count")

    @property
    def agpr_count(self) -> int | None:
        return self.get("agpr_count")

    @property
    def group_segment_fixed_size(self) -> int | None:
        return self.get("group_segment_fixed_size")

    @property
    def private_segment_fixed_size(self) -> int | None:
        return self.get("private_segment_fixed_size")

    @property
    def kernarg_segment_size(self) -> int | None:
        return self.get("kernarg_segment_size")

    @property
    def max_flat_workgroup_size(self) -> int | None:
        return self.get("max_flat_workgroup_size")

    @property
    def uses_dynamic_stack(self) -> bool | None:
        return self.get("uses_dynamic_stack")


def kernels_from_metadata(metadata: dict[str, Any], *, file: str, offset: int) -> list[KernelMetadata]:
    raw = metadata.get("amdhsa.kernels", [])
    if not isinstance(raw, list):
        raise FormatError("amdhsa.kernels is not a list", file=file, offset=offset)
    out = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise FormatError("amdhsa.kernels entry is not a map", file=file, offset=offset)
        args = entry.get(".args", [])
        if args is not None and not isinstance(args, list):
            raise FormatError("kernel .args is not a list", file=file, offset=offset)
        out.append(KernelMetadata(entry))
    return out
