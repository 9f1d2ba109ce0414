"""Command-line options that `solve`, `eval` and `tune` share: one declaration, one help text.

A flag means the same in every command; the budget flags are not here, because what they cap
differs (one run, a whole evaluation, a whole tune) and their help says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Model = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Model spec: sim (the simulated model), sim:latency=0.05,error=0,seed=1, "
        "openai:MODEL (or openai/MODEL), py:package.module:function (your prompt -> text).",
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        help="openai: the endpoint, e.g. http://127.0.0.1:8000/v1 "
        "(default $OPENAI_BASE_URL, else OpenAI's)."
    ),
]
ApiKeyEnv = Annotated[
    str | None,
    typer.Option(
        help="openai: the environment variable holding the API key "
        "(default OPENAI_API_KEY; a key is never a flag)."
    ),
]
Temperature = Annotated[float | None, typer.Option(help="openai: sampling temperature.")]
MaxCompletionTokens = Annotated[
    int | None,
    typer.Option(
        help="openai: most tokens per answer (the API's max_tokens; not a budget). Default: "
        "4 x the expected answer + 256, said in the summary; 0: no cap."
    ),
]
Timeout = Annotated[
    float | None,
    typer.Option(
        help="openai: seconds for one whole response: connect, headers and body (default 120)."
    ),
]
MaxResponseBytes = Annotated[
    int | None,
    typer.Option(
        help="openai: the largest response body read, in bytes (default 8388608, 8 MiB); "
        "a larger one is a failed request."
    ),
]
MaxRetries = Annotated[
    int | None,
    typer.Option(help="openai: retries of 429/5xx/timeouts per request (default 3)."),
]
PriceIn = Annotated[
    float | None,
    typer.Option(help="USD per million prompt tokens (default: the built-in price table)."),
]
PriceOut = Annotated[float | None, typer.Option(help="USD per million completion tokens.")]
Order = Annotated[
    str,
    typer.Option(
        help="Scheduler order: eager (an op starts as soon as its inputs are done), bfs (one op "
        "at a time in the reference controller's BFS order), auto (bfs at --concurrency 1, "
        "else eager)."
    ),
]
Cache = Annotated[
    Path | None,
    typer.Option(
        envvar="THOUGHTGRAPH_CACHE",
        help="Answer cache (SQLite file; no default): cached answers are free, so a rerun resumes.",
    ),
]


Data = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="Your problems: a .jsonl, .csv or .json (list) file, one a row: input (or "
        "--input-column), optional id and reference (docs/tasks.md).",
    ),
]
InputColumn = Annotated[
    str, typer.Option(help="The column of --data holding each problem's input.")
]
