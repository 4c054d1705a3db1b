"""Front-end semantics of herd-style VULKAN tests on small inline programs (no oracle files needed)."""

from __future__ import annotations

import pytest

from amddbg.errors import FormatError
from amddbg.models.herdcheck import UNROLL_BOUND
from amddbg.models.litmus.herd import parse
from amddbg.models.verdict import decide

HDR2 = " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n"


def _decide(body: str, cond: str, init: str = "x=0; y=0;"):
    return decide(parse(f"VULKAN t\n{{ {init} }}\n{HDR2}{body}{cond}\n", "inline.litmus"))


def test_quantifiers_exists_not_exists_forall() -> None:
    body = " st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, x ;\n"
    assert _decide(body, "exists (P1:r0 == 1)").condition_holds
    assert _decide(body, "exists (P1:r0 == 0)").condition_holds
    assert not _decide(body, "~exists (P1:r0 == 1)").condition_holds
    assert _decide(body, "~exists (P1:r0 == 2)").condition_holds
    assert not _decide(body, "forall (P1:r0 == 1)").condition_holds
    assert _decide(body, "forall (P1:r0 == 0 \\/ P1:r0 == 1)").condition_holds


def test_filter_and_final_memory_value() -> None:
    body = " st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 2 ;\n"
    assert _decide(body, "exists (x == 1)").condition_holds
    assert _decide(body, "exists (x == 2)").condition_holds
    assert not _decide(body, "exists (x == 0)").condition_holds


def test_aliases_share_a_location() -> None:
    body = " st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, z ;\n"
    v = _decide(body, "exists (P1:r0 == 1)", init="x=0; z aliases x;")
    assert v.condition_holds


def test_exchange_livelock_does_not_terminate() -> None:
    # P0 swaps in 0 until it reads something other than 1, P1 swaps in 1 until it reads non-0:
    # alternating forever is a fair schedule (no thread is starved), so termination is not guaranteed.
    body = (" LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, m, 0 | rmw.atom.wg.sc0 r1, m, 1 ;\n"
            " bne r0, 1, LC01 | bne r1, 0, LC11 ;\n goto LC00 | goto LC10 ;\n LC01: | LC11: ;\n")
    v = _decide(body, "exists 0==0", init="m=0;")
    assert v.terminates is False
    assert any("livelock" in x for x in v.explanation)


def test_exchange_lock_terminates() -> None:
    body = (" LC00: | LC10: ;\n ld.atom.wg.sc0 r0, m | rmw.atom.wg.sc0 r1, m, 1 ;\n"
            " bne r0, 0, LC01 | bne r1, 0, LC11 ;\n goto LC00 | goto LC10 ;\n LC01: | LC11: ;\n")
    assert _decide(body, "exists 0==0", init="m=0;").terminates is True


def test_spin_on_flag_never_written_hangs_and_flagged_spin_terminates() -> None:
    spin = (" LC00: | st.atom.dv.sc0 y, 1 ;\n ld.atom.dv.sc0 r0, x | ;\n bne r0, 0, LC01 | ;\n"
            " goto LC00 | ;\n LC01: | ;\n")
    v = _decide(spin, "exists 0==0")
    assert v.terminates is False and any("spin forever" in x for x in v.explanation)
    ok = spin.replace("st.atom.dv.sc0 y, 1", "st.atom.dv.sc0 x, 1")
    assert _decide(ok, "exists 0==0").terminates is True


def test_unroll_bound_is_reported() -> None:
    body = (" LC00: | ;\n rmw.atom.wg.sc0.add r0, m, 1 | ;\n bne r0, 5, LC00 | ;\n")
    v = _decide(body, "exists (P0:r0 == 5)", init="m=0;")
    assert v.unroll_bound == UNROLL_BOUND
    assert any("unrolled" in x for x in v.explanation)


@pytest.mark.parametrize("bad,what", [
    ("ld.atom.sc0 r0, x | ;\n", "without scope"),
    ("st.rel.dv.sc0 x, 1 | ;\n", "storage-class semantics"),
    ("frob r0, x | ;\n", "unsupported instruction 'frob'"),
    ("goto LC9 | ;\n", "undefined label LC9"),
])
def test_unsupported_constructs_name_the_construct(bad: str, what: str) -> None:
    with pytest.raises(FormatError, match=what):
        parse(f"VULKAN t\n{{ x=0; }}\n{HDR2} {bad}exists (P0:r0 == 1)\n", "inline.litmus")
