"""Per-architecture facts of the context save area, as ROCdbgapi decodes them (facts, not code).

For each family: how COMPUTE_RELAUNCH state/wave words encode register counts, LDS size and the
first/last-wave flags; where the hardware registers sit in the 16-dword HWREG block; what the trap
temporaries (TTMPs) hold (dispatch packet index, workgroup id, wave-in-group, parked PC); which bits
make up a stop reason. Sources: ROCdbgapi 0.77 `src/architecture.cpp` (gfx9_architecture_t,
mi_architecture_t, gfx90a_t, gfx940_t, gfx10_architecture_t, gfx11_architecture_t,
gfx12_architecture_t), summarised in shared/reference/core-file-format.md section 3; GFX12.5 from the newer dbgapi
in ROCm/rocm-systems (gfx12_5_architecture_t, `Gfx125`).

Each family also encodes (the inverse), used by `amddbg.core.writer`.
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.errors import NotSupported


def bits(x: int, lo: int, hi: int) -> int:
    return (x >> lo) & ((1 << (hi - lo + 1)) - 1)


# TTMP6 bits shared by all families (amdgcn_architecture_t)
TTMP6_SPI_TTMPS_SETUP_DISABLED = 1 << 31
TTMP6_WAVE_STOPPED = 1 << 30
TTMP6_SAVED_STATUS_HALT = 1 << 29
TTMP6_TRAP_ID_SHIFT = 25
TTMP6_TRAP_ID_MASK = 0xF << 25

TRAP_IDS = {1: "breakpoint", 2: "assert_trap", 3: "debug_trap"}

STATUS_HALT = 1 << 13
STATUS_NO_VGPRS = 1 << 24  # gfx11+

# MODE.excp_en / TRAPSTS.excp bits (amdgcn base)
_MODE_EXCP_EN = {
    "float_invalid_operation": 12,
    "float_input_denormal": 13,
    "float_divide_by_zero": 14,
    "float_overflow": 15,
    "float_underflow": 16,
    "float_inexact": 17,
    "int_divide_by_zero": 18,
}
_TRAPSTS_EXCP = {
    "float_invalid_operation": 0,
    "float_input_denormal": 1,
    "float_divide_by_zero": 2,
    "float_overflow": 3,
    "float_underflow": 4,
    "float_inexact": 5,
    "int_divide_by_zero": 6,
}
_TRAPSTS_ADDR_WATCH = (7, 12, 13, 14)
_MODE_ADDR_WATCH_EN = 19
_TRAPSTS_MEM_VIOL = 8
_TRAPSTS_ILLEGAL_INST = 11
_TRAPSTS_XNACK_ERROR = 28

# Stop-reason names follow amd_dbgapi_wave_stop_reasons_t (AMD_DBGAPI_WAVE_STOP_REASON_*), lowercased.
STOP_REASON_ORDER = (
    "breakpoint",
    "watchpoint",
    "single_step",
    "float_input_denormal",
    "float_divide_by_zero",
    "float_overflow",
    "float_underflow",
    "float_inexact",
    "float_invalid_operation",
    "int_divide_by_zero",
    "debug_trap",
    "assert_trap",
    "trap",
    "memory_violation",
    "address_error",
    "illegal_instruction",
)


@dataclass(frozen=True)
class Sizes:
    """Register file sizes and flags one wave record was saved with."""

    vgprs: int
    accvgprs: int
    shared_vgprs: int
    sgprs: int  # SGPRs saved in the record (TTMPs excluded)
    lds: int  # bytes (saved only with the first wave of a workgroup)
    lanes: int


@dataclass(frozen=True)
class WaveWord:
    scoreboard_id: int
    se_id: int
    scratch_en: bool
    first: bool
    last: bool


class Family:
    """gfx9 (gfx900/906) rules; subclasses override what differs."""

    name = "gfx9"
    two_state_words = False
    context_gap = 64  # bytes between a record's top and its context_save_address
    scalar_register_count = 102
    scalar_alias_count = 6
    hwreg_slots = {"m0": 0, "pc": 1, "exec": 3, "status": 5, "trapsts": 6, "xnack_mask": 7, "mode": 9}
    has_trapsts = True
    has_accvgprs = False
    has_shared_vgprs = False
    se_bits = (11, 12)
    hwreg_bytes = 128  # the HWREG block below the LDS (gfx9-gfx12: 16 hwregs, then the 16 TTMPs at its end)
    ttmp_offset = 64  # where the 16 TTMPs start, in bytes from the HWREG block's start

    def __init__(self, processor: str) -> None:
        self.processor = processor

    # -- relaunch words ------------------------------------------------------------------------
    def sizes(self, state0: int, state1: int) -> Sizes:
        v = (bits(state0, 0, 5) + 1) * 4
        return Sizes(v, 0, 0, (bits(state0, 6, 8) + 1) * 16 - 16, bits(state0, 9, 17) * 512, 64)

    def wave_word(self, w: int) -> WaveWord:
        return WaveWord(bits(w, 0, 8), bits(w, *self.se_bits), bool(w >> 15 & 1), bool(w >> 17 & 1), bool(w >> 16 & 1))

    def encode_state(self, s: Sizes) -> tuple[int, ...]:
        self._check(s.vgprs % 4 == 0 and 4 <= s.vgprs <= 256, f"vgpr count {s.vgprs} (multiple of 4, 4..256)")
        self._check(s.sgprs % 16 == 0 and 0 <= s.sgprs <= 112, f"sgpr count {s.sgprs} (multiple of 16, <=112)")
        self._check(s.lds % 512 == 0 and s.lds // 512 < 512, f"lds size {s.lds} (multiple of 512)")
        self._check(s.accvgprs == 0 and s.shared_vgprs == 0 and s.lanes == 64, "wave64 without AccVGPRs")
        return (1 << 31 | (s.vgprs // 4 - 1) | ((s.sgprs + 16) // 16 - 1) << 6 | (s.lds // 512) << 9,)

    def encode_wave(self, w: WaveWord) -> int:
        lo, hi = self.se_bits
        self._check(w.scoreboard_id < 512 and w.se_id < (1 << (hi - lo + 1)), "scoreboard/se id range")
        return w.scoreboard_id | w.se_id << lo | w.scratch_en << 15 | w.last << 16 | w.first << 17

    def _check(self, ok: bool, what: str) -> None:
        if not ok:
            raise ValueError(f"{self.processor}: cannot encode {what}")

    # -- record layout -------------------------------------------------------------------------
    def record_size(self, s: Sizes, first: bool) -> int:
        return (
            self.context_gap
            + (s.lds if first else 0)
            + 64
            + 64
            + 4 * s.sgprs
            + 4 * s.lanes * (s.vgprs + s.accvgprs)
            + 128 * s.shared_vgprs
        )

    def aliased_sgpr_end(self, s: Sizes) -> int:
        """SGPR slots of the record that mean something: s0.. up to and including the alias slots
        (gfx9: flat_scratch, xnack_mask, vcc in the last 6; gfx10+: vcc in the last 2). ROCdbgapi's
        `aliased_sgpr_end = min(scalar_register_count + scalar_alias_count, sgpr_count)`."""
        return max(0, min(self.scalar_register_count + self.scalar_alias_count, s.sgprs))

    def exposed_sgprs(self, s: Sizes) -> int:
        """How many SGPRs dbgapi exposes (s0..s<n-1>): ``min(allocated, N)``, N = 102 on the gfx9 family and
        106 on gfx10+ (ROCdbgapi src/architecture.cpp: the "scalar" register class is s0..s<N-1> plus the
        shadow SGPRs of the same numbers). Below N the alias slots [end-aliases, end) are hidden as SGPRs and
        shown again as shadow sN (gfx9: a 64-SGPR wave shows s0..s63, s58..s63 its flat_scratch, xnack_mask
        and vcc); above N they are only `vcc`/`flat_scratch`/`xnack_mask` (a 112-SGPR gfx9 wave shows
        s0..s101). gfx10+ records always save 128 SGPRs, so every gfx10/11/12 wave shows s0..s105.
        """
        return max(0, min(s.sgprs, self.scalar_register_count))

    def xnack_shadow_slots(self, s: Sizes) -> tuple[int, ...]:
        """Shadow SGPR numbers dbgapi reads from the HWREG block instead of the slot: the xnack_mask pair
        (end-4, end-3) of the gfx9 alias block, when exposed ("The xnack_mask register (shadow_sgpr_end[-4:-3])
        really is saved in the hwreg block (hwreg[7:8]) by the CWSR handler")."""
        if self.scalar_alias_count != 6:
            return ()
        end, n = self.aliased_sgpr_end(s), self.exposed_sgprs(s)
        return tuple(i for i in (end - 4, end - 3) if 0 <= i < n)

    # -- TTMP conventions ----------------------------------------------------------------------
    def spi_ttmps_valid(self, ttmps: list[int], r_version: int) -> bool:
        if r_version < 10:
            return True
        return not ttmps[6] & TTMP6_SPI_TTMPS_SETUP_DISABLED

    def packet_index(self, ttmps: list[int]) -> int:
        return bits(ttmps[6], 0, 24)

    def group_ids(self, ttmps: list[int]) -> tuple[int, int, int]:
        return (ttmps[8], ttmps[9], ttmps[10])

    def wave_in_group(self, ttmps: list[int]) -> int:
        return bits(ttmps[11], 0, 5)

    def parks(self, r_version: int) -> bool:
        return True  # gfx900/906/908/90a cannot halt at s_endpgm

    def parked_pc(self, ttmps: list[int]) -> int:
        return ttmps[7] | bits(ttmps[11], 7, 22) << 32

    def encode_ttmps(
        self,
        ttmps: list[int],
        *,
        packet_index: int,
        group: tuple[int, int, int],
        wave_in_group: int,
        parked_pc: int | None,
    ) -> None:
        ttmps[6] = (ttmps[6] & ~0x1FFFFFF) | (packet_index & 0x1FFFFFF)
        ttmps[8], ttmps[9], ttmps[10] = group
        ttmps[11] = (ttmps[11] & ~0x3F) | (wave_in_group & 0x3F)
        if parked_pc is not None:
            self._store_parked_pc(ttmps, parked_pc)

    def _store_parked_pc(self, ttmps: list[int], pc: int) -> None:
        ttmps[7] = pc & 0xFFFFFFFF
        ttmps[11] = (ttmps[11] & ~(0xFFFF << 7)) | (bits(pc, 32, 47) << 7)

    # -- stop reasons --------------------------------------------------------------------------
    def exceptions(self, hw: dict) -> set[str]:
        trapsts, mode = hw.get("trapsts", 0), hw.get("mode", 0)
        out = set()
        for name, b in _TRAPSTS_EXCP.items():
            if trapsts >> b & 1 and mode >> _MODE_EXCP_EN[name] & 1:
                out.add(name)
        if trapsts >> _TRAPSTS_XNACK_ERROR & 1:
            out.add("memory_violation")
        elif trapsts >> _TRAPSTS_MEM_VIOL & 1:
            out.add("address_error")
        if trapsts >> _TRAPSTS_ILLEGAL_INST & 1:
            out.add("illegal_instruction")
        if mode >> _MODE_ADDR_WATCH_EN & 1 and any(trapsts >> b & 1 for b in _TRAPSTS_ADDR_WATCH):
            out.add("watchpoint")
        return out

    def trap_id(self, ttmps: list[int]) -> int:
        """The saved trap id (0: none): ttmp6[28:25] (amdgcn_architecture_t)."""
        return bits(ttmps[6], 25, 28)

    def store_trap_id(self, ttmps: list[int], trap_id: int) -> None:
        ttmps[6] |= (trap_id & 0xF) << 25

    def stop_reasons(self, hw: dict, ttmps: list[int]) -> list[str]:
        """Stop reasons of a wave the trap handler stopped (ttmp6.wave_stopped), else []."""
        if not ttmps[6] & TTMP6_WAVE_STOPPED:
            return []
        reasons = self.exceptions(hw)
        trap_id = self.trap_id(ttmps)
        if trap_id:
            reasons.add(TRAP_IDS.get(trap_id, "trap"))
        return [r for r in STOP_REASON_ORDER if r in reasons]

    # -- scratch -------------------------------------------------------------------------------
    def scratch_region(self, tmpring: int, se_per_xcc: int, se_id: int, scoreboard: int) -> tuple[int, int]:
        waves = bits(tmpring, 0, 11)
        wavesize = bits(tmpring, 12, 24) * 1024
        if se_per_xcc == 0 or waves % se_per_xcc:
            return (0, 0)
        return (((waves // se_per_xcc) * se_id + scoreboard) * wavesize, wavesize)


class Gfx908(Family):
    name = "gfx908"
    has_accvgprs = True
    se_bits = (11, 13)

    def sizes(self, state0: int, state1: int) -> Sizes:
        s = super().sizes(state0, state1)
        return Sizes(s.vgprs, s.vgprs, 0, s.sgprs, s.lds, 64)

    def encode_state(self, s: Sizes) -> tuple[int, ...]:
        self._check(s.accvgprs == s.vgprs, "gfx908 saves as many AccVGPRs as VGPRs")
        return super().encode_state(Sizes(s.vgprs, 0, 0, s.sgprs, s.lds, s.lanes))


class Gfx90a(Family):
    name = "gfx90a"
    has_accvgprs = True
    se_bits = (9, 11)

    def sizes(self, state0: int, state1: int) -> Sizes:
        arch = (bits(state0, 24, 29) + 1) * 4
        total = (bits(state0, 0, 5) + 1) * 8
        sg = (bits(state0, 6, 8) + 1) * 16 - 16
        return Sizes(arch, max(0, total - arch), 0, sg, bits(state0, 9, 16) * 512, 64)

    def encode_state(self, s: Sizes) -> tuple[int, ...]:
        total = s.vgprs + s.accvgprs
        self._check(s.vgprs % 4 == 0 and 4 <= s.vgprs <= 256, f"vgpr count {s.vgprs} (multiple of 4)")
        self._check(total % 8 == 0 and 8 <= total <= 512, f"vgpr+accvgpr count {total} (multiple of 8)")
        self._check(s.sgprs % 16 == 0 and 0 <= s.sgprs <= 112, f"sgpr count {s.sgprs}")
        self._check(s.lds % 512 == 0 and s.lds // 512 < 256, f"lds size {s.lds}")
        return (
            1 << 31
            | (total // 8 - 1)
            | ((s.sgprs + 16) // 16 - 1) << 6
            | (s.lds // 512) << 9
            | (s.vgprs // 4 - 1) << 24,
        )


class Gfx94x(Gfx90a):
    name = "gfx94x"
    se_bits = (9, 10)

    def spi_ttmps_valid(self, ttmps: list[int], r_version: int) -> bool:
        if r_version < 10:
            return True
        return not (ttmps[11] >> 31 & 1 and ttmps[6] & TTMP6_SPI_TTMPS_SETUP_DISABLED)

    def packet_index(self, ttmps: list[int]) -> int:
        return bits(ttmps[11], 6, 30)

    def parks(self, r_version: int) -> bool:
        return False

    def encode_ttmps(self, ttmps, *, packet_index, group, wave_in_group, parked_pc) -> None:
        ttmps[8], ttmps[9], ttmps[10] = group
        ttmps[11] = (ttmps[11] & (1 << 31)) | (packet_index & 0x1FFFFFF) << 6 | (wave_in_group & 0x3F)
        ttmps[11] |= 1 << 31  # trap-handler TTMPs set up: keeps ttmp4..6 meaningful

    def exceptions(self, hw: dict) -> set[str]:
        out = super().exceptions(hw)
        t = hw.get("trapsts", 0)
        if t >> 25 & 1:
            out.add("single_step")
        if t >> 23 & 1 or t >> 24 & 1:
            out.add("trap")
        return out


class Gfx10(Family):
    name = "gfx10"
    two_state_words = True
    context_gap = 0
    scalar_register_count = 106
    scalar_alias_count = 2
    hwreg_slots = {
        "m0": 0,
        "pc": 1,
        "exec": 3,
        "status": 5,
        "trapsts": 6,
        "xnack_mask": 7,
        "mode": 8,
        "flat_scratch": 9,
    }
    has_shared_vgprs = True
    se_bits = (24, 25)

    def sizes(self, state0: int, state1: int) -> Sizes:
        w32 = bool(state0 >> 24 & 1)
        v = (bits(state0, 0, 5) + 1) * (8 if w32 else 4)
        return Sizes(v, 0, bits(state0, 26, 29) * 8, 128, bits(state0, 10, 17) * 512, 32 if w32 else 64)

    def wave_word(self, w: int) -> WaveWord:
        return WaveWord(bits(w, 0, 9), bits(w, *self.se_bits), bool(w >> 11 & 1), bool(w >> 12 & 1), bool(w >> 29 & 1))

    def encode_state(self, s: Sizes) -> tuple[int, ...]:
        w32 = s.lanes == 32
        gran = 8 if w32 else 4
        self._check(s.lanes in (32, 64), f"lane count {s.lanes}")
        self._check(s.vgprs % gran == 0 and gran <= s.vgprs <= 64 * gran, f"vgpr count {s.vgprs}")
        self._check(s.sgprs == 128, "gfx10+ saves 128 SGPRs")
        self._check(s.shared_vgprs % 8 == 0 and s.shared_vgprs <= 120, f"shared vgprs {s.shared_vgprs}")
        self._check(s.lds % 512 == 0 and s.lds // 512 < 256, f"lds size {s.lds}")
        self._check(s.accvgprs == 0, "no AccVGPRs on gfx10+")
        return (
            1 << 31 | (s.vgprs // gran - 1) | (s.lds // 512) << 10 | w32 << 24 | (s.shared_vgprs // 8) << 26,
            0,
        )

    def encode_wave(self, w: WaveWord) -> int:
        lo, hi = self.se_bits
        self._check(w.scoreboard_id < 1024 and w.se_id < (1 << (hi - lo + 1)), "scoreboard/se id range")
        return w.scoreboard_id | w.scratch_en << 11 | w.first << 12 | w.se_id << lo | w.last << 29

    def parks(self, r_version: int) -> bool:
        # gfx1010-1012 cannot halt at s_endpgm; gfx103x can.
        return self.processor in ("gfx1010", "gfx1011", "gfx1012", "gfx1013")

    def record_size(self, s: Sizes, first: bool) -> int:
        return super().record_size(s, first)


class Gfx11(Gfx10):
    name = "gfx11"
    se_bits = (24, 26)

    def parks(self, r_version: int) -> bool:
        return r_version > 8

    def exceptions(self, hw: dict) -> set[str]:
        out = super().exceptions(hw)
        t = hw.get("trapsts", 0)
        if t >> 20 & 1:
            out.add("single_step")
        if t >> 17 & 1 or t >> 18 & 1:
            out.add("trap")
        return out

    def scratch_region(self, tmpring: int, se_per_xcc: int, se_id: int, scoreboard: int) -> tuple[int, int]:
        waves = bits(tmpring, 0, 11)
        wavesize = bits(tmpring, 12, 26) * 256
        return ((waves * se_id + scoreboard) * wavesize, wavesize)


class Gfx12(Gfx11):
    name = "gfx12"
    hwreg_slots = {
        "m0": 0,
        "pc": 1,
        "exec": 3,
        "state_priv": 5,
        "excp_flag_priv": 6,
        "xnack_mask": 7,
        "mode": 8,
        "flat_scratch": 9,
        "excp_flag_user": 11,
        "trap_ctrl": 12,
        "status": 13,
    }
    has_trapsts = False

    def spi_ttmps_valid(self, ttmps: list[int], r_version: int) -> bool:
        return True

    def packet_index(self, ttmps: list[int]) -> int:
        return bits(ttmps[8], 0, 24)

    def group_ids(self, ttmps: list[int]) -> tuple[int, int, int]:
        if ttmps[8] >> 30 & 1:
            return (ttmps[9], ttmps[7] & 0xFFFF, ttmps[7] >> 16)
        return (ttmps[9], 0, 0)

    def wave_in_group(self, ttmps: list[int]) -> int:
        return bits(ttmps[8], 25, 29)

    def parked_pc(self, ttmps: list[int]) -> int:
        return ttmps[10] | bits(ttmps[11], 7, 22) << 32

    def _store_parked_pc(self, ttmps: list[int], pc: int) -> None:
        ttmps[10] = pc & 0xFFFFFFFF
        ttmps[11] = (ttmps[11] & ~(0xFFFF << 7)) | (bits(pc, 32, 47) << 7)

    def encode_ttmps(self, ttmps, *, packet_index, group, wave_in_group, parked_pc) -> None:
        x, y, z = group
        if wave_in_group > 31:
            raise ValueError("gfx12 records wave_in_group in 5 bits")
        yz = bool(y or z)
        ttmps[9] = x
        ttmps[7] = (y & 0xFFFF) | (z & 0xFFFF) << 16
        ttmps[8] = (packet_index & 0x1FFFFFF) | wave_in_group << 25 | yz << 30 | 1 << 31
        if parked_pc is not None:
            self._store_parked_pc(ttmps, parked_pc)

    def exceptions(self, hw: dict) -> set[str]:
        priv, user, ctrl = hw.get("excp_flag_priv", 0), hw.get("excp_flag_user", 0), hw.get("trap_ctrl", 0)
        out = set()
        for name, b in _TRAPSTS_EXCP.items():  # EXCP_FLAG_USER and TRAP_CTRL use bits 0..6 in the same order
            if user >> b & 1 and ctrl >> b & 1:
                out.add(name)
        if priv >> 12 & 1:
            out.add("memory_violation")
        elif priv >> 4 & 1:
            out.add("address_error")
        if priv >> 6 & 1:
            out.add("illegal_instruction")
        if ctrl >> 7 & 1 and priv & 0xF:
            out.add("watchpoint")
        if priv >> 11 & 1:
            out.add("single_step")
        if priv >> 8 & 1 or priv >> 9 & 1:
            out.add("trap")
        return out


class Gfx125(Gfx12):
    """GFX12.5 (gfx1250), from the newer amd-dbgapi (ROCm/rocm-systems projects/rocdbgapi/src/architecture.cpp,
    gfx12_5_architecture_t; ROCdbgapi 0.77 has no GFX12.5): wave32 only, VGPRs saved in blocks of 16 (up to
    v1023), no shared VGPRs, LDS in 256-dword granules (COMPUTE_RELAUNCH state bits 18:10), the last-wave flag in
    bit 13 of the wave word, a 128-dword HWREG block (its first 14 slots as gfx12's) whose 16 TTMPs are saved at
    the end of the SGPR block just below it (`ttmps_addr = hwregs_addr - 64`: SGPR slots 112..127), and the trap
    id in ttmp11[31:28]. **INFERRED** (not in dbgapi): the wave word's other fields as gfx11's.

    Workgroup clusters: with clusters the architected TTMP9/TTMP7 hold the *cluster* id and TTMP6[27:0] the
    position and shape (amddbg/emu/clusters.py). `group_ids` rebuilds the workgroup id from them
    (cluster id * (max id + 1) + position, per dimension); TTMP6[27:0] = 0, as amddbg writes it for a dispatch
    without clusters, gives TTMP9/TTMP7 unchanged. **INFERRED**: whether hardware leaves TTMP6[27:0] zero outside
    a cluster dispatch is not known here; amddbg's own cores are the ones read this way."""

    name = "gfx125"
    hwreg_bytes = 512
    ttmp_offset = -64

    def sizes(self, state0: int, state1: int) -> Sizes:
        return Sizes((bits(state0, 0, 5) + 1) * 16, 0, 0, 128, bits(state0, 10, 18) * 1024, 32)

    def wave_word(self, w: int) -> WaveWord:
        return WaveWord(bits(w, 0, 9), bits(w, *self.se_bits), bool(w >> 11 & 1), bool(w >> 12 & 1), bool(w >> 13 & 1))

    def encode_state(self, s: Sizes) -> tuple[int, ...]:
        self._check(s.lanes == 32, "gfx1250 waves have 32 lanes")
        self._check(s.vgprs % 16 == 0 and 16 <= s.vgprs <= 1024, f"vgpr count {s.vgprs} (multiple of 16)")
        self._check(s.sgprs == 128, "gfx10+ saves 128 SGPRs")
        self._check(s.shared_vgprs == 0 and s.accvgprs == 0, "no shared VGPRs or AccVGPRs on gfx1250")
        self._check(s.lds % 1024 == 0 and s.lds // 1024 < 512, f"lds size {s.lds} (multiple of 1024)")
        return (1 << 31 | (s.vgprs // 16 - 1) | (s.lds // 1024) << 10 | 1 << 24, 0)

    def encode_wave(self, w: WaveWord) -> int:
        lo, hi = self.se_bits
        self._check(w.scoreboard_id < 1024 and w.se_id < (1 << (hi - lo + 1)), "scoreboard/se id range")
        return w.scoreboard_id | w.scratch_en << 11 | w.first << 12 | w.last << 13 | w.se_id << lo

    def record_size(self, s: Sizes, first: bool) -> int:
        return (s.lds if first else 0) + self.hwreg_bytes + 4 * s.sgprs + 4 * s.lanes * s.vgprs

    def trap_id(self, ttmps: list[int]) -> int:
        return bits(ttmps[11], 28, 31)

    def store_trap_id(self, ttmps: list[int], trap_id: int) -> None:
        ttmps[11] = (ttmps[11] & 0x0FFFFFFF) | (trap_id & 0xF) << 28

    def group_ids(self, ttmps: list[int]) -> tuple[int, int, int]:
        c = super().group_ids(ttmps)
        t6 = ttmps[6]
        return tuple(c[d] * (bits(t6, 12 + 4 * d, 15 + 4 * d) + 1) + bits(t6, 4 * d, 4 * d + 3) for d in range(3))


_FAMILIES = {
    "gfx900": Family,
    "gfx906": Family,
    "gfx908": Gfx908,
    "gfx90a": Gfx90a,
    "gfx940": Gfx94x,
    "gfx941": Gfx94x,
    "gfx942": Gfx94x,
    "gfx1010": Gfx10,
    "gfx1011": Gfx10,
    "gfx1012": Gfx10,
    "gfx1030": Gfx10,
    "gfx1031": Gfx10,
    "gfx1032": Gfx10,
    "gfx1100": Gfx11,
    "gfx1101": Gfx11,
    "gfx1102": Gfx11,
    "gfx1200": Gfx12,
    "gfx1201": Gfx12,
    "gfx1250": Gfx125,
}

SUPPORTED_PROCESSORS = tuple(_FAMILIES)
FAMILY_EXAMPLES = {
    "gfx9": "gfx906",
    "gfx908": "gfx908",
    "gfx90a": "gfx90a",
    "gfx94x": "gfx942",
    "gfx10": "gfx1030",
    "gfx11": "gfx1100",
    "gfx12": "gfx1201",
    "gfx125": "gfx1250",
}


def family_for(processor: str) -> Family:
    """The context-save-area rules for `processor`; NotSupported for ones ROCdbgapi 0.77 lacks."""
    cls = _FAMILIES.get(processor)
    if cls is None:
        raise NotSupported(f"context save area decoding for {processor}")
    return cls(processor)
