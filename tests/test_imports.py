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


def test_a_plain_http_endpoint_loads_neither_aiohttp_nor_a_tls_context() -> None:
    """The lean transport speaks HTTP/1.1 itself to an http:// endpoint with no proxy: no
    aiohttp (whose import builds two SSL contexts) and no CA bundle for a run that has no TLS."""
    import os

    from .fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        code = (
            "import thoughtgraph\n"
            "from thoughtgraph.models.openai import OpenAIModel\n"
            f"model = OpenAIModel('m', base_url={server.base_url!r})\n"
            "r = thoughtgraph.solve('sorting', [3, 1, 2], scheme='io', model=model)\n"
            "assert r.output == [1, 2, 3], r.output\n"
            "from thoughtgraph.models import clients\n"
            "assert clients._ssl_context is None\n"
        )
        unset = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE")
        environment = {
            k: v
            for k, v in os.environ.items()
            if not k.lower().endswith("_proxy") and k not in unset
        }
        probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
        out = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            env=environment,
        ).stdout
    loaded = set(out.split())
    assert "thoughtgraph.models.http1" in loaded
    assert not {"aiohttp", "yarl", "certifi", "openai"} & loaded


def test_a_transport_s_missing_library_is_one_line(monkeypatch) -> None:
    from thoughtgraph.errors import UnknownNameError
    from thoughtgraph.models.openai import OpenAIModel

    monkeypatch.setitem(sys.modules, "aiohttp", None)  # not installed
    with pytest.raises(UnknownNameError, match=r"^openai transport=lean needs the aiohttp package"):
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    assert OpenAIModel("m", base_url="http://127.0.0.1:9/v1", transport="sdk").transport == "sdk"
