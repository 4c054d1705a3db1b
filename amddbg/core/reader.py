"""`open_core`: one GPU core (split `gpucore.<pid>`, unified, or a host core + GPU core pair) as a `Core`.

Everything past the ELF header and the KFD note is decoded lazily and cached: `core.waves` decodes the
context save areas on first use, `core.code_objects` walks the link map on first use.
Problems local to one queue, wave or code object become `core.warnings`; only a file that cannot be a
GPU core at all raises `FormatError`.
"""

from __future__ import annotations

import os
from functools import cached_property

from amddbg.core.address_spaces import CoreMemory
from amddbg.core.arch import family_for
from amddbg.core.elffile import ElfCore
from amddbg.core.host import Host, parse_host_notes
from amddbg.core.kfd import (
    KFD_DBG_QUEUE_ERROR_MASK,
    KFD_DBG_QUEUE_INVALID_MASK,
    NOTE_NAME,
    NT_AMDGPU_KFD_CORE_STATE,
    QUEUE_TYPE_COMPUTE_AQL,
    QUEUE_TYPES,
    R_VERSION_MAX,
    R_VERSION_MIN,
    KfdNote,
    agent_debuggable_warnings,
    exception_names,
    parse_kfd_note,
    processor_name,
)
from amddbg.core.memory import SegmentMap
from amddbg.core.model import Agent, CodeObjectRef, Dispatch, Queue, Wave
from amddbg.core.rdebug import CodeObjectLoader, code_objects
from amddbg.core.waves import decode_queue
from amddbg.errors import AmddbgError, FormatError, NotSupported

DEFAULT_R_VERSION = 10


class Core:
    """An opened GPU core. Attributes are read-only views; nothing here prints."""

    def __init__(
        self, files: list[ElfCore], *, sysroot: str | None = None, solib_search_path: list[str] | None = None
    ) -> None:
        self.files = files
        self.warnings: list[str] = []
        self._lost_waves = [0, 0]  # wave records listed but not in the file; XCCs whose wave count is lost
        note_file, note = None, None
        for f in files:
            for n in f.notes:
                if n.name == NOTE_NAME and n.type == NT_AMDGPU_KFD_CORE_STATE:
                    if note is None:
                        note_file, note = f, n
                    else:
                        self.warnings.append(f"{f.path}: a second AMDGPU core-state note is ignored")
        if note is None:
            cut = next((f for f in files if f.truncated), None)
            if cut is not None:  # the note was in the part of the file that is missing: say that, not "no core"
                raise FormatError(f"damaged: {cut.truncation_text()}; the AMDGPU core-state note is not in what "
                                  "remains", file=cut.path)
            raise FormatError(
                "no NT_AMDGPU_KFD_CORE_STATE note: not an AMDGPU core (or only the host half of a split pair)",
                file=files[0].path,
            )
        self.note_file = note_file
        self.kfd: KfdNote = parse_kfd_note(note.desc, file=note_file.path, offset=note.offset)
        self.warnings += self.kfd.warnings
        self.layout = "split" if note_file.is_gpu_core else "unified"
        self._segments = SegmentMap(files, primary=note_file)
        for f in files:
            self.warnings += [f"{os.path.basename(f.path)}: {w}" for w in f.warnings]
        self.memory = CoreMemory(self)
        self._sysroot = sysroot
        self._search = list(solib_search_path or [])
        for e in self.kfd.agents:  # what dbgapi would refuse, said as dbgapi says it
            self.warnings += agent_debuggable_warnings(e)
        if self.runtime_info.get("runtime_state") != 1:
            self.warnings.append(
                f"runtime state is {self.runtime_info.get('runtime_state')} (not enabled): dbgapi would "
                "report no agents"
            )

    # -- note ------------------------------------------------------------------------------------
    @cached_property
    def emulator_notes(self) -> list[dict]:
        """What `amddbg run --core` recorded beside the state (amddbg.core.emunotes): out-of-range LDS accesses,
        ...; empty for a core the ROCm runtime wrote."""
        from amddbg.core.emunotes import read

        notes, warnings = read(self.files)
        self.warnings += warnings
        return notes

    @property
    def kfd_version(self) -> tuple[int, int]:
        return self.kfd.kfd_version

    @property
    def runtime_info(self) -> dict:
        return self.kfd.runtime_info

    @cached_property
    def agents(self) -> list[Agent]:
        out = []
        for e in self.kfd.agents:
            out.append(
                Agent(
                    e["gpu_id"],
                    processor_name(e["gfx_target_version"]),
                    e["gfx_target_version"],
                    e["num_xcc"],
                    e["exception_status"],
                    exception_names(e["exception_status"]),
                    e,
                )
            )
        return out

    @cached_property
    def queues(self) -> list[Queue]:
        out = []
        for e in self.kfd.queues:
            qid = e["queue_id"]
            out.append(
                Queue(
                    qid & ~(KFD_DBG_QUEUE_ERROR_MASK | KFD_DBG_QUEUE_INVALID_MASK),
                    e["gpu_id"],
                    QUEUE_TYPES.get(e["queue_type"], f"type{e['queue_type']}"),
                    e["ring_base_address"],
                    e["ring_size"],
                    e["write_pointer_address"],
                    e["read_pointer_address"],
                    e["ctx_save_restore_address"],
                    e["ctx_save_restore_area_size"],
                    e["exception_status"],
                    exception_names(e["exception_status"]),
                    bool(qid & KFD_DBG_QUEUE_ERROR_MASK),
                    bool(qid & KFD_DBG_QUEUE_INVALID_MASK),
                    e,
                )
            )
        return out

    def agent(self, gpu_id: int) -> Agent | None:
        return next((a for a in self.agents if a.gpu_id == gpu_id), None)

    # -- runtime ---------------------------------------------------------------------------------
    @cached_property
    def _rdebug(self):
        loader = CodeObjectLoader(
            self._segments, os.path.dirname(os.path.abspath(self.files[0].path)), self._sysroot, self._search,
            self.warnings,
        )
        self._loader = loader
        out = code_objects(self._segments, self.runtime_info.get("r_debug", 0), loader, self.warnings)
        out = (out[0], self._check_pair(self.runtime_info.get("r_debug", 0), out[1]))
        rd = out[0]
        if rd is not None and not R_VERSION_MIN <= rd["r_version"] <= R_VERSION_MAX:
            self.warnings.append(
                f"_amdgpu_r_debug.r_version is {rd['r_version']}: ROCdbgapi 0.77 accepts "
                f"{R_VERSION_MIN}..{R_VERSION_MAX} (newer dbgapi 12) and would not load this process's code objects"
            )
        return out

    def _check_pair(self, r_debug_address: int, refs: list[CodeObjectRef]) -> list[CodeObjectRef]:
        """A host core given with a GPU core it does not belong to (another process, or another run of the same
        program): warn with both pids and why, and use only code objects the GPU core's own link map and memory
        agree with, so a mismatched host core never replaces or hides them (amddbg.core.pairing)."""
        if len(self.files) < 2 or not self.note_file.is_gpu_core:
            return refs
        from amddbg.core.pairing import check_pair

        hosts = [f for f in self.files if f is not self.note_file]
        found = check_pair(self.note_file, hosts, self.host, r_debug_address, refs, self._loader)
        if found is None:
            return refs
        self.warnings.append(found.warning)
        return found.refs

    @property
    def r_debug(self) -> dict | None:
        return self._rdebug[0]

    @property
    def r_version(self) -> int:
        rd = self.r_debug
        return rd["r_version"] if rd else DEFAULT_R_VERSION

    @property
    def code_objects(self) -> list[CodeObjectRef]:
        return self._rdebug[1]

    # -- waves -----------------------------------------------------------------------------------
    @cached_property
    def _decoded(self) -> tuple[list[Wave], dict]:
        waves: list[Wave] = []
        dispatches: dict = {}
        ttmp_setup = bool(self.runtime_info.get("ttmp_setup"))
        for q in self.queues:
            agent = self.agent(q.gpu_id)
            if agent is None:
                self.warnings.append(f"queue {q.queue_id}: no agent with gpu_id {q.gpu_id}")
                continue
            if q.entry["queue_type"] != QUEUE_TYPE_COMPUTE_AQL:
                continue
            try:
                family = family_for(agent.processor)
            except NotSupported as exc:
                self.warnings.append(f"queue {q.queue_id} on {agent.processor}: {exc.message}")
                continue
            waves += decode_queue(
                self._segments,
                agent,
                q,
                family,
                r_version=self.r_version,
                ttmp_setup=ttmp_setup,
                dispatches=dispatches,
                warnings=self.warnings,
                lost=self._lost_waves,
            )
        return waves, dispatches

    @property
    def damage(self) -> dict | None:
        """How this core is damaged, or None: ``{"file", "size", "expected"}`` for the first file that ends
        before its headers say (truncated at offset `size`), ``"waves_readable"``, and ``"waves_expected"``
        (None when the lost part held the wave count itself)."""
        readable = len(self.waves)  # decoding fills _lost_waves
        cut = next((f for f in self.files if f.truncated), None)
        lost, unknown = self._lost_waves
        if cut is None and not lost and not unknown:
            return None
        return {"file": cut.path if cut else self.files[0].path, "size": cut.file_size if cut else None,
                "expected": cut.expected_size if cut else None,
                "truncation": cut.truncation_text() if cut else None, "waves_readable": readable,
                "waves_expected": None if unknown else readable + lost}

    @property
    def waves(self) -> list[Wave]:
        return self._decoded[0]

    @property
    def dispatches(self) -> list[Dispatch]:
        return sorted(self._decoded[1].values(), key=lambda d: (d.gpu_id, d.queue_id, d.dispatch_id))

    # -- symbols -------------------------------------------------------------------------------
    def _parsed_code_objects(self):
        """(ref, CodeObject) for every code object that can be read and parsed (others are warned)."""
        out = getattr(self, "_parsed_cache", None)
        if out is None:
            out = []
            for ref in self.code_objects:
                try:
                    out.append((ref, ref.codeobj))
                except AmddbgError as exc:
                    self.warnings.append(f"code object {ref.uri}: {exc.message}")
                except Exception as exc:  # noqa: BLE001 - a corrupt object must not stop the core's view
                    self.warnings.append(f"code object {ref.uri}: cannot be parsed ({type(exc).__name__})")
            self._parsed_cache = out
        return out

    def symbolize(self, address: int) -> tuple[CodeObjectRef, str, int] | None:
        """(code object, function name, offset) of a GPU address inside a loaded code object."""
        for ref, co in self._parsed_code_objects():
            try:
                sym = co.symbol_at(address - ref.load_address)
            except AmddbgError as exc:  # a damaged symbol table costs the names, not the core's view
                msg = f"code object {ref.uri}: symbols unreadable: {exc.message}"
                if msg not in self.warnings:
                    self.warnings.append(msg)
                continue
            if sym is not None:
                return ref, sym.name, address - ref.load_address - sym.address
        return None

    def kernel_name(self, dispatch: Dispatch) -> str | None:
        """Name of the kernel a dispatch runs (its kernel descriptor matched against loaded code objects)."""
        if dispatch.kernel_object is None:
            return None
        for ref, co in self._parsed_code_objects():
            try:
                k = co.kernel_by_descriptor(dispatch.kernel_object - ref.load_address)
            except AmddbgError:
                continue
            if k is not None:
                return k.name
        return None

    # -- host --------------------------------------------------------------------------------------
    @cached_property
    def host(self) -> Host:
        notes = [n for f in self.files if not f.is_gpu_core for n in f.notes]
        return parse_host_notes(notes)

    def read(self, address: int, size: int) -> bytes:
        """Global memory bytes (raises Unavailable)."""
        return self._segments.read(address, size)

    def close(self) -> None:
        for f in self.files:
            f.close()

    def __enter__(self) -> Core:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_core(path_or_paths, *, sysroot: str | None = None, solib_search_path=None) -> Core:
    """Open a GPU core: one path (split GPU core or unified core) or several (host core + GPU core)."""
    if isinstance(path_or_paths, str | os.PathLike):
        paths = [path_or_paths]
    else:
        paths = list(path_or_paths)
    if not paths:
        raise FormatError("no core file given")
    if isinstance(solib_search_path, str):
        solib_search_path = [p for p in solib_search_path.split(os.pathsep) if p]
    files = [ElfCore(p) for p in paths]
    # The file holding the note goes first (its directory anchors relative code object paths).
    files.sort(key=lambda f: not f.is_gpu_core)
    return Core(files, sysroot=sysroot, solib_search_path=solib_search_path)
