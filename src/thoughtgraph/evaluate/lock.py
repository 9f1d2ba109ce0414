"""One `eval` at a time per output folder: an exclusive lock held until the process ends.

Why: two evals appending to one results.jsonl each run the pairs the other has not finished
yet, and the folder ends with duplicate rows (111 lines for 60 pairs). The lock is an advisory
`flock` on `FOLDER/.eval.lock`, held by this process until it exits: the system releases it then,
even on kill -9, so a crashed eval never leaves the folder locked.
"""

from __future__ import annotations

import os
from pathlib import Path

from thoughtgraph.errors import InputError

LOCK_NAME = ".eval.lock"
_HELD: dict[Path, int] = {}  # folder -> descriptor holding its lock (this process's evals)


def hold_folder_lock(folder: Path) -> None:
    """Take the folder's lock for the rest of the process, or refuse (one line) if another
    process holds it. Idempotent within one process (a rerun in-process is no rival)."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; evals there are not guarded
        return
    key = folder.resolve()
    if key in _HELD:
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise InputError(
            f"another thoughtgraph eval is writing to {folder}: "
            "wait for it to finish or give another --out"
        ) from None
    _HELD[key] = fd
