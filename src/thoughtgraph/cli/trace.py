"""`thoughtgraph trace ...`: look at a run's trace (the file `solve --trace` writes).

A typer sub-app, registered by the main CLI with `app.add_typer(trace_app, name="trace")`.
Errors are `InputError`s, so the main entry point prints them as one line and exits 2.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from thoughtgraph.cli import options as opt
from thoughtgraph.errors import InputError, shown

trace_app = typer.Typer(
    help="Look at a run's trace (written by `solve --trace`).", **opt.APP_SETTINGS
)


@trace_app.callback()
def trace() -> None:
    """Look at a run's trace (written by `solve --trace`)."""
    # A callback keeps `view` a subcommand even while it is the only one.


@trace_app.command("view")
def view(
    run: Annotated[
        Path,
        typer.Argument(
            help="A trace file written by `solve --trace`, or an `eval --traces` folder "
            "(then pick a run with --row, or --scheme and --sample)."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="The HTML file to write (default: next to the trace, .html)."
        ),
    ] = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
    row: Annotated[
        int | None,
        typer.Option(help="eval folder: the run on this line of results.jsonl (from 1)."),
    ] = None,
    scheme: Annotated[str | None, typer.Option(help="eval folder: the run's scheme.")] = None,
    sample: Annotated[str | None, typer.Option(help="eval folder: the run's sample id.")] = None,
    size: Annotated[
        int | None, typer.Option(help="eval folder of several sizes: the run's size.")
    ] = None,
) -> None:
    """Write one self-contained HTML page that draws the run's graph of thoughts."""
    from thoughtgraph.viewer.html import (  # loaded when run: `--help` stays fast
        load_trace,
        write_html,
    )

    picked = row is not None or scheme is not None or sample is not None or size is not None
    if run.is_dir() and str(run) and (picked or (run / "results.jsonl").exists()):
        run = eval_trace(run, row, scheme, sample, size)
    elif picked:
        raise InputError("--row, --scheme, --sample and --size pick a run of an eval folder")
    if not run.name or run.is_dir():  # '' arrives as '.'; with_suffix would raise on it
        raise InputError(
            f"{shown(str(run))} is a folder: give a trace file (written by solve --trace)"
        )
    trace = load_trace(run)
    page = output if output is not None else run.with_suffix(".html")
    if page.resolve() == run.resolve():
        raise InputError(f"the page would overwrite the trace {run}: give -o PAGE.html")
    if not page.parent.exists():
        raise InputError(f"cannot write {page}: folder {page.parent} does not exist")
    try:
        write_html(trace, page)
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        # a hand-edited or foreign file: some field has a shape no trace has
        raise InputError(
            f"{run} is not a thoughtgraph trace: a field has the wrong type "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''})"
        ) from None
    typer.echo(f"{page} ({len(trace.get('thoughts', []))} thoughts)")
    if open_page:
        webbrowser.open(page.resolve().as_uri())


def eval_trace(
    folder: Path, row: int | None, scheme: str | None, sample: str | None, size: int | None
) -> Path:
    """The trace file of one run of an `eval --traces` folder, picked by its line of
    results.jsonl or by scheme and sample (and size, in a folder of several sizes)."""
    from thoughtgraph.evaluation.runner import (  # only here: `trace view` starts fast
        RESULTS,
        load_results,
    )

    if not (folder / RESULTS).exists():
        sizes = sorted(
            (p.name.removeprefix("size-") for p in folder.glob("size-*") if p.is_dir()), key=len
        )
        if not sizes:
            raise InputError(f"{folder} holds no {RESULTS}: give an eval --out folder")
        if size is None:
            raise InputError(f"{folder} holds several sizes ({', '.join(sizes)}): add --size")
        folder = folder / f"size-{size}"
        if not folder.is_dir():
            raise InputError(f"{folder.parent} has no size {size} (sizes: {', '.join(sizes)})")
    results = load_results(folder)
    if row is not None:
        if scheme is not None or sample is not None:
            raise InputError("give either --row or --scheme and --sample")
        if not 1 <= row <= len(results):
            raise InputError(f"--row must be between 1 and {len(results)} (lines of {RESULTS})")
        found = results[row - 1]
    else:
        if scheme is None or sample is None:
            raise InputError("pick a run: --row N, or --scheme and --sample")
        matches = [r for r in results if r.scheme == scheme and str(r.sample) == str(sample)]
        if not matches:
            schemes = ", ".join(dict.fromkeys(r.scheme for r in results))
            raise InputError(f"{folder} has no run of {scheme} on sample {sample} ({schemes})")
        found = matches[-1]
    if not found.trace:
        raise InputError(
            f"no trace was written for {found.scheme} on sample {found.sample}: the evaluation "
            "ran without --traces (run it into a new --out with --traces)"
        )
    path = folder / found.trace
    if not path.is_file():
        raise InputError(f"the trace {path} is missing (moved or deleted)")
    return path
