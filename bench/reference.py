"""Side by side with the paper's reference implementation on the same graphs (opt-in; not run by
the tests or CI).

    .venv/bin/python bench/reference.py [--sizes 32 64 128] [--repeats 3] [--samples 5]
        [--latency 0.05] [--reference-repo PATH]

First run: creates a scratch venv at bench/.reference-venv (not committed) and installs the
reference from PyPI into it: `graph-of-thoughts==0.0.2 --no-deps`, plus what its imports need
(`backoff`, and `openai<1`: its ChatGPT class uses the 0.x SDK). Its `controller` package
imports torch and transformers when it loads (for its Llama backend, not used here): the bench
gives it empty stand-in modules for those two instead of installing them.

The PyPI package ships the controller and operations but not the paper's sorting examples. The
bench runs those examples UNMODIFIED (`examples/sorting/sorting_032.py`, `_064`, `_128` and
`utils.py` of spcl/graph-of-thoughts at commit f6be6c0 (version 0.0.2)): their `SortingPrompter`,
`SortingParser` and `got()` graph, imported as they are. It takes them from `--reference-repo`
(a clone, or a bare mirror, of that repository) or, failing that, downloads the four files from
GitHub at that commit into the scratch venv. thoughtgraph runs its `got_paper` scheme, the same
graph: 5/31/4, 11/71/6, 23/151/8 requests/completions/rounds at 32/64/128 (printed per row).

The model is an ideal one at zero latency, called in-process: for the reference, a function
that reads the reference's own prompts (split, sort, improve, merge) and answers them correctly
in the format its parser expects; for thoughtgraph, the simulated model's answer function
(error 0). "whole CPU ms/sample" is the process CPU time (`time.process_time`) around each
sample's run, after one warm-up sample (so imports and first-use costs are excluded), averaged
over `--samples` distinct problems, with no timer inside the run; "engine" is the same minus the
CPU spent inside the answer function (the model left out); "reader" is the CPU inside the answer
reader alone (thoughtgraph's `SortingTask.parse_reply` and `parse_split`, the reference's
`SortingParser.parse_*_answer`), and "engine without reader" the engine minus it, so the
reader's share is visible. Those two shares are timed in a second pass over the same samples:
thoughtgraph reads each answer alone and the reference all of an op's answers at once, so a
timed reader costs the two sides different numbers of timer calls (62 against 10 a sorting-32
sample), which the whole run's figure leaves out. Each side's model is one class with an
instance per sample. "wall s" is one
sample with every request taking `--latency` seconds (the reference's language model sleeps,
one request at a time as its controller sends them; thoughtgraph's model awaits, so independent
requests overlap), beside its floor (rounds x latency). Every (system, size, repeat) runs in its
own process; repeats are interleaved (reference, thoughtgraph, reference, ...) and each ratio is
ours / the reference's within one repeat, so a loaded machine moves both sides of a ratio alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = HERE / ".reference-venv"
STUBS = VENV / "stubs"
REFERENCE = "graph-of-thoughts==0.0.2"
# what graph_of_thoughts' imports need besides torch/transformers: its ChatGPT class names
# `openai.error` at import, which only the 0.x SDK has
NEEDS = ["backoff", "openai<1"]
# the paper's sorting examples, unmodified, from spcl/graph-of-thoughts at the commit that set the
# version to 0.0.2 (later examples import a `language_models` package that 0.0.2 does not have)
EXAMPLES_COMMIT = "f6be6c06f22728afd22b2a19eca1cfa27010dcf0"
EXAMPLE_FILES = ["sorting_032.py", "sorting_064.py", "sorting_128.py", "utils.py"]
EXAMPLES = VENV / f"examples-{EXAMPLES_COMMIT[:7]}" / "sorting"  # a package: `from . import utils`


# --- the scratch venv -------------------------------------------------------------------------
def reference_python() -> Path:
    """The scratch venv's python, created and filled on first use."""
    python = VENV / "bin" / "python"
    if not (VENV / ".ready").exists():
        print(f"setting up {VENV} (once): {REFERENCE} --no-deps, {' '.join(NEEDS)}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "--no-deps", REFERENCE], check=True)
        subprocess.run([*pip, *NEEDS], check=True)
        for name in ("torch", "transformers"):  # empty stand-ins: only imported, never used
            (STUBS / name).mkdir(parents=True, exist_ok=True)
            (STUBS / name / "__init__.py").write_text(
                '"""Empty stand-in for bench/reference.py."""\n'
            )
        (VENV / ".ready").write_text(REFERENCE + "\n")
    return python


def reference_examples(repo: str | None) -> Path:
    """The reference's sorting examples (unmodified), fetched once into the scratch venv."""
    if all((EXAMPLES / name).exists() for name in [*EXAMPLE_FILES, "__init__.py"]):
        return EXAMPLES
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    for name in EXAMPLE_FILES:
        path = f"examples/sorting/{name}"
        if repo:  # a clone or a bare mirror: read the file at the pinned commit
            text = subprocess.run(
                ["git", "-C", repo, "show", f"{EXAMPLES_COMMIT}:{path}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        else:
            url = (
                f"https://raw.githubusercontent.com/spcl/graph-of-thoughts/{EXAMPLES_COMMIT}/{path}"
            )
            print(f"downloading {url}")
            with urllib.request.urlopen(url, timeout=60) as reply:
                text = reply.read().decode()
        (EXAMPLES / name).write_text(text)
    (EXAMPLES / "__init__.py").write_text("")  # the examples import `from . import utils`
    return EXAMPLES


# --- the shared pieces (imported in each child) ------------------------------------------------
class AnswerClock:
    """An answer function, called in-process; timed (process CPU) when `timed`, else called
    as it is (the pass that measures the whole run pays no timer calls)."""

    def __init__(self, answer: Any, timed: bool = True) -> None:
        self.answer, self.seconds, self.timed = answer, 0.0, timed

    def __call__(self, prompt: str) -> str:
        if not self.timed:
            return str(self.answer(prompt))
        started = time.process_time()
        try:
            return str(self.answer(prompt))
        finally:
            self.seconds += time.process_time() - started


class ReaderClock:
    """The process CPU spent in a system's answer reader (its parser's methods), so the engine
    is shown with and without it."""

    seconds = 0.0

    @classmethod
    def wrap(cls, owner: type, names: list[str]) -> None:
        for name in names:
            setattr(owner, name, cls._timed(getattr(owner, name)))

    @classmethod
    def _timed(cls, method: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                cls.seconds += time.process_time() - started

        return timed


def sim_answer() -> Any:
    """The simulated model's answer function (error 0): answers thoughtgraph's prompts."""
    import random

    from thoughtgraph.sim.model import SimulatedModel

    sim, rng = SimulatedModel(error=0.0), random.Random(0)
    return lambda prompt: sim.answer(prompt, rng)


_LIST = re.compile(r"\[[0-9, ]*\]")


def reference_answer(prompt: str) -> str:
    """An ideal model for the reference's own sorting prompts, in the format its parser reads."""

    def list_after(marker: str) -> list[int]:
        found = _LIST.search(prompt, prompt.rindex(marker))
        assert found, prompt[-300:]
        return json.loads(found.group())

    if prompt.startswith("<Instruction> Split"):
        numbers = list_after("\nInput: ")
        parts = int(re.search(r"into (\d+) lists", prompt).group(1))  # type: ignore[union-attr]
        size = len(numbers) // parts
        lists = {f"List {i + 1}": numbers[i * size : (i + 1) * size] for i in range(parts)}
        return json.dumps(lists)
    if "\nMerged list:" in prompt:
        return str(sorted(list_after("\n1: ") + list_after("\n2: ")))
    return str(sorted(list_after("\nInput: ")))


def problem_for(size: int, sample: int) -> list[int]:
    import random

    return random.Random(size * 1000 + sample).choices(range(10), k=size)


def measured(
    run: Any, size: int, samples: int, latency: float, timed_reader: Any
) -> dict[str, Any]:
    """Warm up, then CPU per sample at zero latency and one timed wall.

    Two passes over the same samples: the first measures the whole run with nothing timed
    inside it (no timer calls in the answer function or the reader: thoughtgraph reads each
    answer alone, the reference all of an op's answers at once, so timing the reader costs the
    two sides different numbers of timer calls); the second, with `timed_reader()` applied,
    measures the answer function's and the reader's shares of it."""
    run(problem_for(size, 0), 0.0, AnswerClock(None, timed=False))  # warm-up: imports, first use
    cpu, solved, counts = 0.0, 0, None
    for sample in range(1, samples + 1):
        clock = AnswerClock(None, timed=False)
        started = time.process_time()
        figures = run(problem_for(size, sample), 0.0, clock)
        cpu += time.process_time() - started
        solved += bool(figures.pop("solved"))
        counts = figures
    timed_reader()
    answer = 0.0
    ReaderClock.seconds = 0.0
    for sample in range(1, samples + 1):
        clock = AnswerClock(None)
        run(problem_for(size, sample), 0.0, clock)
        answer += clock.seconds
    reader = ReaderClock.seconds
    started = time.perf_counter()
    run(problem_for(size, samples + 1), latency, AnswerClock(None, timed=False))
    wall = time.perf_counter() - started
    return {
        **(counts or {}),
        "whole_ms": 1000 * cpu / samples,
        "cpu_ms": 1000 * (cpu - answer) / samples,
        "bare_ms": 1000 * (cpu - answer - reader) / samples,
        "answer_ms": 1000 * answer / samples,
        "reader_ms": 1000 * reader / samples,
        "wall": wall,
        "solved": f"{solved}/{samples}",
    }


# --- thoughtgraph ------------------------------------------------------------------------------
def run_thoughtgraph(size: int, samples: int, latency: float) -> dict[str, Any]:
    import thoughtgraph
    from thoughtgraph.tasks.sorting import SortingTask

    answer = sim_answer()

    class Direct:
        """thoughtgraph's model interface over an in-process answer function (one class, an
        instance per sample, as the reference's `Counted`)."""

        name, simulated = "direct", True

        def __init__(self, clock: AnswerClock, wait: float) -> None:
            self.clock, self.wait = clock, wait

        async def complete(self, prompt: str, n: int = 1) -> list[thoughtgraph.Completion]:
            if self.wait:
                await asyncio.sleep(self.wait)
            return [thoughtgraph.Completion(self.clock(prompt)) for _ in range(n)]

    def run(problem: list[int], wait: float, clock: AnswerClock) -> dict[str, Any]:
        if clock.answer is None:
            clock.answer = answer
        model = Direct(clock, wait)
        result = thoughtgraph.solve("sorting", problem, model=model, scheme="got_paper")
        return {
            "requests": result.calls,
            "completions": result.completions,
            "rounds": result.depth,
            "ops": len(result.graph.ops),
            "solved": result.output == sorted(problem),
        }

    timed = lambda: ReaderClock.wrap(SortingTask, ["parse_reply", "parse_split"])  # noqa: E731
    return measured(run, size, samples, latency, timed)


# --- the reference -----------------------------------------------------------------------------
def run_reference(size: int, samples: int, latency: float) -> dict[str, Any]:
    import importlib

    from graph_of_thoughts.controller import AbstractLanguageModel, Controller

    sys.path.insert(0, str(EXAMPLES.parent))
    example = importlib.import_module(f"sorting.sorting_{size:03d}")  # the paper's, unmodified
    readers = ["parse_aggregation_answer", "parse_generate_answer", "parse_improve_answer"]
    config = VENV / "lm-config.json"
    config.write_text("{}")

    class Counted(AbstractLanguageModel):
        """The reference's language-model interface over an in-process answer function."""

        def __init__(self, answer: Any, wait: float) -> None:
            super().__init__(str(config), "ideal")
            self.answer, self.wait, self.requests, self.completions = answer, wait, 0, 0

        def query(self, query: str, num_responses: int = 1) -> list[str]:
            self.requests += 1
            self.completions += num_responses
            if self.wait:
                time.sleep(self.wait)  # one request at a time, as its controller sends them
            return [self.answer(query) for _ in range(num_responses)]

        def get_response_texts(self, query_responses: list[str]) -> list[str]:
            return query_responses

    def rounds(gop: Any) -> int:
        """Model calls on the longest path of the graph."""
        depth: dict[int, int] = {}
        for op in gop.operations:  # in insertion order: predecessors first
            calls = 1 if type(op).__name__ in ("Generate", "Aggregate") else 0
            depth[id(op)] = max((depth[id(p)] for p in op.predecessors), default=0) + calls
        return max(depth.values())

    def run(problem: list[int], wait: float, clock: AnswerClock) -> dict[str, Any]:
        if clock.answer is None:
            clock.answer = reference_answer
        lm, gop = Counted(clock, wait), example.got()
        state = {"original": str(problem), "current": "", "phase": 0, "method": "got"}
        controller = Controller(lm, gop, example.SortingPrompter(), example.SortingParser(), state)
        controller.run()
        final = controller.get_final_thoughts()[0]
        return {
            "requests": lm.requests,
            "completions": lm.completions,
            "rounds": rounds(gop),
            "ops": len(gop.operations),
            "solved": bool(final and final[0].solved),
        }

    timed = lambda: ReaderClock.wrap(example.SortingParser, readers)  # noqa: E731
    return measured(run, size, samples, latency, timed)


# --- the parent --------------------------------------------------------------------------------
def child(system: str, size: int, samples: int, latency: float) -> None:
    run = run_thoughtgraph if system == "thoughtgraph" else run_reference
    figures = run(size, samples, latency)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def measure(system: str, size: int, samples: int, latency: float) -> dict[str, Any]:
    env = dict(os.environ)
    if system == "thoughtgraph":
        python = Path(sys.executable)
    else:
        python = reference_python()
        env["PYTHONPATH"] = os.pathsep.join([str(STUBS), str(ROOT / "src")])
    args = ["--child", system, "--size", str(size), "--samples", str(samples)]
    args += ["--latency", str(latency)]
    out = subprocess.run(
        [str(python), __file__, *args], env=env, capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"{system} at {size} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def span(values: list[float]) -> str:
    """Median and range of a few ratios."""
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{mid:.2f} ({low:.2f}-{high:.2f})" if len(values) > 1 else f"{mid:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (default 3)")
    parser.add_argument("--samples", type=int, default=5, help="samples per process (default 5)")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--reference-repo", help="a clone of spcl/graph-of-thoughts to read from")
    parser.add_argument("--child", choices=["thoughtgraph", "reference"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.size, args.samples, args.latency)
    if not set(args.sizes) <= {32, 64, 128}:
        raise SystemExit("error: the reference's sorting examples exist for 32, 64 and 128 only")
    reference_python()
    reference_examples(args.reference_repo)
    load = os.getloadavg()
    runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for _ in range(args.repeats):  # interleaved: every size and system once per repeat
        for size in args.sizes:
            for system in ("reference", "thoughtgraph"):
                runs.setdefault((size, system), []).append(
                    measure(system, size, args.samples, args.latency)
                )
    print(f"command: .venv/bin/python bench/reference.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; {REFERENCE} with its "
        f"sorting examples at {EXAMPLES_COMMIT[:7]}, unmodified (torch, transformers: empty "
        f"stand-ins) against thoughtgraph's got_paper; {args.repeats} interleaved repeats x "
        f"{args.samples} samples; latency {args.latency} s for wall"
    )
    print(
        "| size | system | requests | completions | rounds | ops | whole CPU ms/sample "
        "| engine ms | reader ms | engine without reader ms | wall s | wall / floor "
        "| peak RSS MiB | solved |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for size in args.sizes:
        for system in ("reference", "thoughtgraph"):
            rows = runs[size, system]
            f = rows[0]

            def mid(key: str, rows: list[dict[str, Any]] = rows) -> float:
                return statistics.median(r[key] for r in rows)

            wall = mid("wall")
            rss = max(r["peak_rss_mib"] for r in rows)
            floor = f["rounds"] * args.latency
            print(
                f"| {size} | {system} | {f['requests']} | {f['completions']} | {f['rounds']} "
                f"| {f['ops']} | {mid('whole_ms'):.2f} | {mid('cpu_ms'):.2f} "
                f"| {mid('reader_ms'):.2f} | {mid('bare_ms'):.2f} | {wall:.3f} "
                f"| {wall / floor:.2f} | {rss:.0f} | {f['solved']} |"
            )
        pairs = list(zip(runs[size, "thoughtgraph"], runs[size, "reference"], strict=True))

        def ratio(key: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]] = pairs) -> str:
            return span([ours[key] / ref[key] for ours, ref in pairs])

        print(
            f"| {size} | ours / reference | | | | | {ratio('whole_ms')} | {ratio('cpu_ms')} "
            f"| {ratio('reader_ms')} | {ratio('bare_ms')} | {ratio('wall')} | | | |"
        )
    print(
        "whole = the sample's process CPU, the model's answers included; engine = whole minus "
        "the answer function; reader = the answer reader alone (thoughtgraph: SortingTask."
        "parse_reply, parse_split; the reference: SortingParser.parse_*_answer); ratio = "
        "thoughtgraph / reference within one repeat: median (range); target for whole CPU per "
        "sample <= 1.0 (goal 0.5)"
    )
    print(
        f"load average (1, 5, 15 min) at the start: {' '.join(f'{x:.2f}' for x in load)}, "
        f"at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
