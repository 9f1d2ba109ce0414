"""bench/transport.py's verdicts: a marginal at or below zero is noise, never a target met."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_a_marginal_at_or_below_zero_meets_no_target(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the bench imports its loopback server module
    monkeypatch.delitem(sys.modules, "transport", raising=False)
    import transport

    assert transport.verdict(0.2, 0.3) == "met"
    assert transport.verdict(0.4, 0.3) == "NOT met"
    assert transport.verdict(-0.874, 0.3).startswith("no figure")
    assert transport.verdict(0.0, 0.15).startswith("no figure")
