"""tune's ledger counts HTTP requests, the unit of its caps: against a loopback server whose
first answer to every prompt is a 500 (each call then takes two requests), a tune never sends
more requests than `--max-requests`, counted at the server."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from .conftest import run_cli
from .fake_openai import FakeOpenAI, Fault
from .test_tune import server_args, study_of

pytest.importorskip("optuna", reason="optuna is not installed: pip install -e '.[tune]'")


class FirstFails:
    """The first request for each prompt gets a 500 (with a short Retry-After); its retry is
    answered."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, body: Any) -> Fault | None:
        key = repr(body.get("messages")) + repr(body.get("n"))
        with self.lock:
            if key in self.seen:
                return None
            self.seen.add(key)
        return Fault("500", seconds=0.01)


@pytest.mark.parametrize("flag", ["--max-requests", "--max-calls"])
def test_a_tune_with_retries_stays_under_its_request_cap(capsys, tmp_path, monkeypatch, flag):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "tune"
    cap = 60
    with FakeOpenAI(fault_when=FirstFails()) as server:
        code, _out, err = run_cli(
            capsys, *server_args(server, out, flag, str(cap), "--max-retries", "2")
        )
        sent = len(server.requests)
    failed = sum(r.fault == "500" for r in server.requests)
    assert failed > 0 and sent > failed  # retries happened and some answered
    assert sent <= cap, err
    assert code == 1 and "budget exhausted" in err  # 60 requests cannot pay for every trial
    study = study_of(out)
    runs = [t.user_attrs for t in study.trials] + study.user_attrs.get("report_runs", [])
    recorded = sum(r.get("paid", {}).get("requests", 0) for r in runs)
    assert recorded == sent  # the ledger counts what the server saw, retries included
