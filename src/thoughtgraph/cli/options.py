"""Command-line options that `solve`, `eval` and `tune` share: one declaration, one help text.

A flag means the same in every command; the budget flags are not here, because what they cap
differs (one run, a whole evaluation, a whole tune) and their help says so. The nine openai
flags are one group (`with_openai_flags`): a command names them once, as its `openai`
parameter, and gets them as one `OpenAIFlags`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from thoughtgraph.spend.accounting import MODEL_CALL_KINDS

Task = Annotated[
    str,
    typer.Argument(
        help="Task: a built-in name (sorting), package.module:Class, an installed plugin's "
        "name or a task file (.yaml, .yml, .toml)."
    ),
]
Model = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Model spec: sim (the simulated model), sim:profile=llama-3-70b,latency=0.05,"
        "error=0,seed=1, "
        "openai:MODEL (or openai/MODEL; openai:MODEL@http://host:port/v1 names its endpoint), "
        "py:package.module:function (your prompt -> text). Any spec may end with "
        ",price_in=X,price_out=Y (its own price).",
    ),
]
ModelFor = Annotated[
    list[str] | None,
    typer.Option(
        "--model-for",
        metavar="KIND=SPEC",
        help="Route one kind of call to another model, e.g. --model-for "
        "merge=openai:big@http://127.0.0.1:8002/v1 (repeatable; KIND: "
        + ", ".join(MODEL_CALL_KINDS)
        + "). The other calls go to "
        "--model; the caps hold for all models together. The openai flags fill in what a "
        "KIND's spec leaves out.",
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
Reasoning = Annotated[
    bool | None,
    typer.Option(
        "--reasoning",
        help="openai: the model reasons before it answers: its default --max-completion-tokens "
        "has 16384 more tokens of room to think from the first request (without it, from the "
        "first reply that shows reasoning).",
    ),
]
ReasoningEffort = Annotated[
    str | None,
    typer.Option(
        help="openai: none, minimal, low, medium, high or xhigh, sent as the request's "
        "reasoning_effort (for a server and model that take it); part of the answer cache's key.",
    ),
]
PriceIn = Annotated[
    float | None,
    typer.Option(
        help="USD per million prompt tokens, for each model whose spec gives no price_in= "
        "(default: the built-in price table)."
    ),
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


APP_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,  # every user error is one `error:` line, not a traceback
    "rich_markup_mode": None,
    "no_args_is_help": True,
}
"""How every typer app of the command line is made (`thoughtgraph`, `thoughtgraph trace`)."""


@dataclass(frozen=True)
class OpenAIFlags:
    """The openai flags of a command (None: not given), as one value."""

    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_completion_tokens: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    max_response_bytes: int | None = None
    reasoning: bool | None = None
    reasoning_effort: str | None = None

    def by_flag(self) -> dict[str, Any]:
        """`{"--base-url": ..., ...}`, as `modelspec.model_from_flags` checks them."""
        from thoughtgraph.modelspec import model_flags

        return model_flags(**asdict(self))


_OPENAI_OPTIONS: dict[str, Any] = {
    "base_url": BaseUrl,
    "api_key_env": ApiKeyEnv,
    "temperature": Temperature,
    "max_completion_tokens": MaxCompletionTokens,
    "timeout": Timeout,
    "max_retries": MaxRetries,
    "max_response_bytes": MaxResponseBytes,
    "reasoning": Reasoning,
    "reasoning_effort": ReasoningEffort,
}
NO_OPENAI_FLAGS = OpenAIFlags()

Command = TypeVar("Command", bound=Callable[..., Any])


def with_openai_flags(command: Command) -> Command:
    """Declare the openai flags once for every command that takes them: the command's parameter
    `openai: OpenAIFlags` stands, in its signature and so in its `--help`, for the nine
    options (`--base-url` ... `--reasoning-effort`), and receives them as one `OpenAIFlags`.
    Typer reads the signature this returns (`__signature__`), so the options keep their names,
    defaults, help and place."""
    signature = inspect.signature(command, eval_str=True)
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name != "openai":
            parameters.append(parameter)
            continue
        parameters += [
            inspect.Parameter(name, parameter.kind, default=None, annotation=annotation)
            for name, annotation in _OPENAI_OPTIONS.items()
        ]
    if len(parameters) == len(signature.parameters):
        raise TypeError(f"{command.__name__} has no `openai` parameter to expand")

    @functools.wraps(command)
    def expanded(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name, None) for name in _OPENAI_OPTIONS}
        return command(*args, openai=OpenAIFlags(**given), **kwargs)

    expanded.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    expanded.__annotations__ = {
        **{p.name: p.annotation for p in parameters},
        "return": signature.return_annotation,
    }
    return expanded  # type: ignore[return-value]
