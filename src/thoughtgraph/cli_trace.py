"""`thoughtgraph trace ...`: look at a run's trace (the file `solve --trace` writes).

A typer sub-app, registered by the main CLI with `app.add_typer(trace_app, name="trace")`.
Errors are `InputError`s, so the main entry point prints them as one line and exits 2.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from .errors import InputError
from .viewer import load_trace, write_html

trace_app = typer.Typer(
    help="Look at a run's trace (written by `solve --trace`).",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    no_args_is_help=True,
)


@trace_app.callback()
def trace() -> None:
    """Look at a run's trace (written by `solve --trace`)."""
    # A callback keeps `view` a subcommand even while it is the only one.


@trace_app.command("view")
def view(
    run: Annotated[Path, typer.Argument(help="A trace file written by `solve --trace`.")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="The HTML file to write (default: next to the trace, .html)."
        ),
    ] = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
) -> None:
    """Write one self-contained HTML page that draws the run's graph of thoughts."""
    if not run.name or run.is_dir():  # '' arrives as '.'; with_suffix would raise on it
        raise InputError(f"{str(run)!r} is a folder: give a trace file (written by solve --trace)")
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
