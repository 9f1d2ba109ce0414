"""`import thoughtgraph` and `thoughtgraph --help` load only what they use: the engine, pydantic,
the HTTP clients (aiohttp, orjson, the openai SDK), rich and asyncio load when a run needs them
(cold start is benchmarked in bench/startup.py; here only what gets imported is checked)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import thoughtgraph

HEAVY = (
    "pydantic",
    "openai",
    "aiohttp",
    "orjson",
    "rich",
    "asyncio",
    "aiolimiter",
    "sqlite3",
    "thoughtgraph.solving.solve",
    "thoughtgraph.tasks",
)


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


@pytest.mark.parametrize(
    "code",
    [
        "import thoughtgraph",
        "import thoughtgraph.models",
        "from thoughtgraph.cli.main import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass",
    ],
)
def test_a_cold_start_loads_nothing_heavy(code: str) -> None:
    loaded = _loaded_after(code)
    assert not {name for name in HEAVY if name in loaded}


def test_every_public_name_resolves_and_matches_its_module() -> None:
    from thoughtgraph import tasks
    from thoughtgraph.engine import graph
    from thoughtgraph.solving import solve as api

    for name in thoughtgraph.__all__:
        assert getattr(thoughtgraph, name) is not None
    assert thoughtgraph.solve is api.solve
    assert thoughtgraph.Graph is graph.Graph
    assert thoughtgraph.get_task is tasks.get_task
    assert set(thoughtgraph.__all__) <= set(dir(thoughtgraph))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        thoughtgraph.nope  # noqa: B018
    from thoughtgraph import models

    with pytest.raises(AttributeError):
        models.nope  # noqa: B018
    assert models.OpenAIModel.__name__ == "OpenAIModel"


def _eval_loads(tmp_path, *args: str) -> set[str]:
    argv = ["eval", "sorting", "--size", "8", "--schemes", "io", "--out", str(tmp_path / "e")]
    code = (
        "from thoughtgraph.cli.main import main\n"
        f"try:\n    main({argv + list(args)!r})\nexcept SystemExit as exc:\n"
        "    assert not exc.code, exc.code"
    )
    return _loaded_after(code)


def test_an_eval_imports_scipy_and_matplotlib_only_for_what_it_writes(tmp_path) -> None:
    """scipy.stats takes a second or more to import and matplotlib most of one: an eval of one
    sample has no interval to compute (one sample cannot vary), and --no-figure draws nothing."""
    heavy = {"scipy", "numpy", "matplotlib"}
    assert not heavy & _eval_loads(tmp_path, "--samples", "1", "--no-figure")
    drawn = _eval_loads(tmp_path, "--samples", "1")
    assert "matplotlib" in drawn and "scipy" not in drawn
    assert (tmp_path / "e" / "errors.png").exists()
    pytest.importorskip("scipy.stats")
    assert "scipy.stats" in _eval_loads(tmp_path, "--samples", "6", "--no-figure")
    assert "95% CI" in (tmp_path / "e" / "summary.md").read_text()
