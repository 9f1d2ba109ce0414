"""How the simulated model reads a prompt: which task, which job, the right answer, its length.

Each task module has `read(prompt, sections) -> Job | None` (`jobs.py`: the `Job` and the helpers
the readers share). The model (`model.py`) decides how many slips, from the job's task,
kind and length. Readers look only at the prompt text, as a model would: the tagged sections
(`<input>`, `<part>`, `<a>`, ...) and the instructions around them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from thoughtgraph.sim.jobs import Job, known_task, sections

Reader = Callable[[str, dict[str, str]], Job | None]


def read_prompt(prompt: str) -> Job | None:
    """The job this prompt asks for, or None when no task reads it.

    Read once per prompt text: a reading depends on the text alone and its job writes each
    answer afresh (`Job.write` copies what it slips), so the n answers of one request and a
    prompt asked again share one reading (got_paper's merges ask 10 answers of one prompt of
    up to 128 numbers, and reading it was most of the simulated model's time)."""
    return _read(prompt)


@functools.lru_cache(maxsize=32)
def _read(prompt: str) -> Job | None:
    readers = _readers()
    task = known_task(prompt)
    if task in readers and task != "sorting":
        return readers[task](prompt, sections(prompt))
    # a sorting prompt of 8,192 numbers is read by the sorting reader alone, without the
    # generic section scan it does not use
    return readers["sorting"](prompt, {})


@functools.cache
def _readers() -> dict[str, Reader]:
    """The readers by task, loaded on the first prompt (keywords and doc-merge read with the
    tasks' code), once: not looked up again for each of a run's 8,191 prompts."""
    from thoughtgraph.sim import docmerge, keywords, sets, sorting

    return {
        "doc-merge": docmerge.read,
        "keyword-counting": keywords.read,
        "set-intersection": sets.read,
        "sorting": sorting.read,
    }
