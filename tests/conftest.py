"""Shared fixtures: inputs used across the suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

INPUT_32 = [
    0,
    0,
    5,
    9,
    0,
    7,
    9,
    9,
    1,
    2,
    6,
    1,
    1,
    9,
    0,
    1,
    3,
    5,
    2,
    3,
    5,
    6,
    0,
    2,
    7,
    4,
    6,
    2,
    9,
    7,
    5,
    9,
]  # sample 0 of the paper's sorting_032 dataset


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    from thoughtgraph.cli.main import main

    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def input32() -> list[int]:
    return list(INPUT_32)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_learned_in_flight_limits() -> Iterator[None]:
    """In-flight limits are learned per process (models/inflight.py): a limit learned from one
    test's timeouts must not throttle a later test whose server got the same port."""
    from thoughtgraph.models import inflight

    inflight.forget_endpoints()
    yield
    inflight.forget_endpoints()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for the viewer's in-browser tests (skipped, reason shown, where none is
    installed or can be)."""
    from .chromium import Browser, find_or_install

    binary, why = find_or_install()
    if binary is None:
        pytest.skip(f"no headless Chromium here: {why}")
    pytest.importorskip("websocket", reason="websocket-client (dev extra) drives Chromium")
    chromium = Browser(binary)
    yield chromium
    chromium.close()
