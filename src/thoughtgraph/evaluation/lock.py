"""One `eval` (or one `tune`) at a time per output folder: an exclusive lock held until the
process ends.

Why: two evals appending to one results.jsonl each run the pairs the other has not finished
yet, and the folder ends with duplicate rows (111 lines for 60 pairs); two tunes on one study
fail each other's running trials. The lock is an advisory `flock` on `FOLDER/.eval.lock` (or
`.tune.lock`), held by this process until it exits: the system releases it then, even on
kill -9, so a crashed run never leaves the folder locked.

`make_folder` creates an `--out` folder, turning the ways that can fail (a read-only parent, a
path under a file, /proc, a full disk) into one line.
"""

from __future__ import annotations

import os
from pathlib import Path

from thoughtgraph.errors import InputError

LOCK_NAME = ".eval.lock"
_HELD: dict[tuple[Path, str], int] = {}  # (folder, command) -> descriptor holding its lock


def lock_name(command: str) -> str:
    """The lock file of `command` in its folder (`.eval.lock`, `.tune.lock`)."""
    return f".{command}.lock"


def make_folder(folder: Path, flag: str = "--out") -> None:
    """Create `folder` (and its parents), or refuse with one line saying why it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{flag} {folder} is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"cannot create {flag} {folder}: {exc.strerror or exc}") from None


def hold_folder_lock(folder: Path, command: str = "eval") -> None:
    """Take the folder's lock for the rest of the process, or refuse (one line) if another
    process holds it. Idempotent within one process (a rerun in-process is no rival)."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; runs there are not guarded
        return
    make_folder(folder)
    key = (folder.resolve(), command)
    if key in _HELD:
        return
    try:
        fd = os.open(folder / lock_name(command), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InputError(f"cannot write to --out {folder}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise InputError(
            f"another thoughtgraph {command} is writing to {folder}: "
            "wait for it to finish or give another --out"
        ) from None
    _HELD[key] = fd
