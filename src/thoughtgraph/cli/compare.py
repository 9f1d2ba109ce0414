"""`thoughtgraph compare RUN_A RUN_B [...]`: two or more eval folders, paired on their shared rows.

Only the options live here; the work is in `evaluate.compare` (loaded when the command runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from thoughtgraph.errors import InputError

FORMATS = ("md", "csv", "json")


def compare_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Eval output folders (one size, or several with size-N/ in them); the first is "
            "the baseline the others are compared with."
        ),
    ],
    format: Annotated[str, typer.Option("--format", help="md, csv or json (on stdout).")] = "md",
    figure: Annotated[
        Path | None,
        typer.Option(
            help="Also draw the runs side by side per scheme to this file (.png or .svg; needs "
            "matplotlib)."
        ),
    ] = None,
) -> None:
    """Pair the (scheme, size, sample) rows the runs share and print, per scheme and size, both
    medians, the paired difference with its 95% CI and Wilcoxon p-value, the rank-biserial
    effect size, solved counts and the tokens and cost each scheme consumed."""
    from thoughtgraph.evaluation import statistics

    if format not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {format!r}")
    if len(runs) < 2:
        raise InputError("give at least two eval folders to compare")
    if figure is not None and figure.suffix.lower() not in (".png", ".svg"):
        raise InputError(f"--figure must end in .png or .svg, got {figure.name!r}")
    if not statistics.available():
        raise InputError(f"compare needs scipy and numpy: {statistics.INSTALL_HINT}")
    from thoughtgraph.evaluation import compare as comparing
    from thoughtgraph.evaluation.figures import FigureMissing

    loaded = [comparing.load_run(path) for path in runs]
    rows = comparing.compare(loaded)
    if format == "md":
        typer.echo(comparing.to_markdown(rows, loaded), nl=False)
    elif format == "csv":
        typer.echo(comparing.to_csv(rows), nl=False)
    else:
        typer.echo(comparing.to_json(rows, loaded))
    if figure is not None:
        try:
            comparing.write_figure(loaded, figure)
        except FigureMissing as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f"cannot write {figure}: {exc.strerror or exc}") from None
        typer.echo(f"wrote {figure}", err=True)
