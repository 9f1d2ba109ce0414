"""Side by side with the paper's reference implementation (opt-in; not run by the tests or CI).

    .venv/bin/python bench/reference.py [--sizes 32 64 128] [--latency 0.05]

First run: creates a scratch venv at bench/.reference-venv (not committed) and installs the
reference from PyPI into it: `graph-of-thoughts==0.0.2 --no-deps`, plus what its imports need
(`backoff`, and `openai<1`: its ChatGPT class uses the 0.x SDK). Its `controller` package
imports torch and transformers when it loads (for its Llama backend, not used here): the bench
gives it empty stand-in modules for those two instead of installing them.

The package ships the controller and operations but not the paper's sorting prompter and parser,
so this file has its own (`_reference_prompter`): they render thoughtgraph's own sorting prompt
templates, so both systems send the same prompts, and parse and score with thoughtgraph's sorting
task. The graph is the paper's GoT configuration for sorting (`got_paper`): the reference's graph
of operations is built op for op from thoughtgraph's `got_paper` graph.

Each (system, size) runs in its own process:
- over HTTP, against one loopback OpenAI-compatible server in another process (bench/loopback.py)
  that answers with the simulated model's answer function (error 0) after `latency` seconds: the
  reference through the openai 0.x client its own ChatGPT class uses (sync, one call at a time),
  thoughtgraph through its `openai:` model (the current SDK's AsyncOpenAI);
- in-process at zero latency with the same answer function called directly, for ms/op: the
  process CPU time minus the time spent inside the answer function, per op of the graph.

Columns: requests and completions sent, rounds (model calls on the critical path), wall seconds,
wall / floor (floor = rounds x latency), ms/op, and the child's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
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


# --- the shared pieces (imported in each child) ------------------------------------------------
class AnswerClock:
    """The simulated model's answer function (error 0), timed, called in-process."""

    def __init__(self) -> None:
        import random

        from thoughtgraph.models.sim import SimulatedModel

        self.sim, self.rng, self.seconds = SimulatedModel(error=0.0), random.Random(0), 0.0

    def __call__(self, prompt: str) -> str:
        started = time.process_time()
        try:
            return self.sim.answer(prompt, self.rng)
        finally:
            self.seconds += time.process_time() - started


def problem_for(size: int) -> list[int]:
    import random

    return random.Random(size).choices(range(10), k=size)


def got_paper(size: int) -> Any:
    from thoughtgraph import schemes

    return schemes.build("got_paper", "sorting", size)


# --- thoughtgraph ------------------------------------------------------------------------------
def run_thoughtgraph(size: int, latency: float, base_url: str) -> dict[str, Any]:
    import thoughtgraph
    from thoughtgraph.models.openai import OpenAIModel

    problem = problem_for(size)
    model = OpenAIModel("sim", base_url=base_url, max_retries=0)
    thoughtgraph.solve("sorting", problem[:32], model=model, scheme="got_paper")  # warm-up
    started = time.perf_counter()
    result = thoughtgraph.solve("sorting", problem, model=model, scheme="got_paper")
    wall = time.perf_counter() - started
    clock = AnswerClock()

    class Direct:
        name, simulated = "direct", True

        async def complete(self, prompt: str, n: int = 1) -> list[thoughtgraph.Completion]:
            return [thoughtgraph.Completion(clock(prompt)) for _ in range(n)]

    cpu = time.process_time()
    direct = thoughtgraph.solve("sorting", problem, model=Direct(), scheme="got_paper")
    engine = time.process_time() - cpu - clock.seconds
    return {
        "requests": result.calls,
        "completions": result.completions,
        "rounds": result.depth,
        "wall": wall,
        "ops": len(direct.graph.ops),
        "engine": engine,
        "solved": result.output == sorted(problem),
    }


# --- the reference -----------------------------------------------------------------------------
def _reference_prompter(task: Any, prompts: dict[str, Any]) -> tuple[Any, Any]:
    """The sorting prompter and parser the reference needs, on thoughtgraph's templates.

    A thought's state: `problem` (the numbers it must sort), `content` (its parsed answer, None if
    unusable), `current` (the answer as shown in prompts) and, after a split, `part` (its index).
    """
    from graph_of_thoughts.parser import Parser
    from graph_of_thoughts.prompter import Prompter

    class SortingPrompter(Prompter):
        name = "io"  # set by the op about to run (the reference runs one op at a time)

        def generate_prompt(self, num_branches: int, **state: Any) -> str:
            problem = state["problem"]
            values = {
                "input": task.render(problem),
                "original": task.render(problem),
                "current": state.get("current", ""),
                "parts": num_branches,
                "length": len(problem) // max(1, num_branches),
            }
            return prompts[self.name].render(values)

        def aggregation_prompt(self, state_dicts: list[dict], **kwargs: Any) -> str:
            values = {"result_a": state_dicts[0]["current"], "result_b": state_dicts[1]["current"]}
            return prompts["paper_merge"].render(values)

        def improve_prompt(self, **kwargs: Any) -> str:
            raise NotImplementedError  # got_paper improves with Generate, as the paper does

        def validation_prompt(self, **kwargs: Any) -> str:
            raise NotImplementedError

        def score_prompt(self, state_dicts: list[dict], **kwargs: Any) -> str:
            raise NotImplementedError  # scored in code

    class SortingParser(Parser):
        def __init__(self, prompter: SortingPrompter) -> None:
            self.prompter = prompter

        def _answer(self, problem: list[int], text: str) -> dict[str, Any]:
            try:
                content = task.parse(text)
            except Exception:
                return {"problem": problem, "content": None, "current": text}
            return {"problem": problem, "content": content, "current": task.render(content)}

        def parse_generate_answer(self, state: dict, texts: list[str]) -> list[dict]:
            if self.prompter.name != "split":
                return [self._answer(state["problem"], text) for text in texts]
            parts = self.prompter.parts
            try:
                chunks = task.parse_split(texts[0], parts)
                if len(chunks) != parts:
                    raise ValueError
            except Exception:
                chunks = task.split(state["problem"], parts)  # what thoughtgraph falls back to
            return [
                {"problem": c, "content": c, "current": task.render(c), "part": i}
                for i, c in enumerate(chunks)
            ]

        def parse_aggregation_answer(self, states: list[dict], texts: list[str]) -> list[dict]:
            problem = states[0]["problem"] + states[1]["problem"]
            return [self._answer(problem, text) for text in texts]

        def parse_improve_answer(self, state: dict, texts: list[str]) -> dict:
            raise NotImplementedError

        def parse_validation_answer(self, state: dict, texts: list[str]) -> bool:
            raise NotImplementedError

        def parse_score_answer(self, states: list[dict], texts: list[str]) -> list[float]:
            raise NotImplementedError

    prompter = SortingPrompter()
    return prompter, SortingParser(prompter)


def reference_graph(graph: list[dict], task: Any, prompter: Any) -> tuple[Any, int]:
    """The reference's graph of operations for thoughtgraph's graph (its ops as dicts, inputs
    first), op for op, and its rounds (model calls on the longest path)."""
    from graph_of_thoughts import operations as ops

    def named(base: type, name: str, parts: int = 0) -> type:
        class Named(base):  # type: ignore[misc, valid-type]
            def _execute(self, lm: Any, prompter_: Any, parser: Any, **kwargs: Any) -> None:
                prompter.name, prompter.parts = name, parts
                super()._execute(lm, prompter_, parser, **kwargs)

        return Named

    def errors(state: dict) -> float:
        if state.get("content") is None:
            return float(len(state["problem"]) + 1)
        return task.score(state["problem"], state["content"]).value

    gop, built, depth = ops.GraphOfOperations(), {}, {}
    for op in graph:
        op_id, kind, inputs, p = op["id"], op["kind"], op["inputs"], op["params"]
        if kind == "split":
            node = named(ops.Generate, "split", p["parts"])(p["parts"], 1)
        elif kind == "select":
            node = ops.Selector(lambda ts, i=p["index"]: [t for t in ts if t.state["part"] == i])
        elif kind == "generate":
            node = named(ops.Generate, p["prompt"])(1, p["n"])
        elif kind == "aggregate":
            node = named(ops.Aggregate, p["prompt"])(p["n"])
        elif kind == "score":
            node = ops.Score(1, False, errors)
        elif kind == "keep_best":
            node = ops.KeepBestN(p["n"], False)
        elif kind == "ground_truth":
            node = ops.GroundTruth(lambda s: s.get("content") == sorted(s["problem"]))
        else:
            raise SystemExit(f"no reference operation for op kind {kind!r}")
        for source in inputs:
            node.add_predecessor(built[source])
        gop.add_operation(node)
        built[op_id] = node
        calls = 1 if kind in ("split", "generate", "aggregate") else 0
        depth[op_id] = max((depth[s] for s in inputs), default=0) + calls
    return gop, max(depth.values())


def run_reference(size: int, latency: float, base_url: str, graph_file: str) -> dict[str, Any]:
    import openai
    from graph_of_thoughts.controller import AbstractLanguageModel, Controller

    from thoughtgraph.tasks import get_task
    from thoughtgraph.tasks.sorting_prompts import PROMPTS

    task, problem = get_task("sorting"), problem_for(size)
    config = VENV / "lm-config.json"
    config.write_text("{}")

    class Counted(AbstractLanguageModel):
        """The reference's language-model interface over a callable `prompt, n -> texts`."""

        def __init__(self, answer: Any) -> None:
            super().__init__(str(config), "sim")
            self.answer, self.requests, self.completions = answer, 0, 0

        def query(self, query: str, num_responses: int = 1) -> list[str]:
            self.requests += 1
            self.completions += num_responses
            return self.answer(query, num_responses)

        def get_response_texts(self, query_responses: list[str]) -> list[str]:
            return query_responses

    graphs = json.loads(Path(graph_file).read_text())  # size -> got_paper's ops, from the parent

    def over_http(prompt: str, n: int) -> list[str]:
        messages = [{"role": "user", "content": prompt}]
        reply = openai.ChatCompletion.create(  # the 0.x SDK, as the reference's ChatGPT class
            model="sim", messages=messages, n=n, api_base=base_url, api_key="sk-no-key-required"
        )
        return [choice["message"]["content"] or "" for choice in reply["choices"]]

    def run(answer: Any, numbers: list[int]) -> tuple[Counted, Any, int]:
        lm = Counted(answer)
        prompter, parser = _reference_prompter(task, PROMPTS)
        gop, rounds = reference_graph(graphs[str(len(numbers))], task, prompter)
        state = {"problem": numbers, "content": numbers, "current": task.render(numbers)}
        controller = Controller(lm, gop, prompter, parser, state)
        controller.run()
        return lm, controller, rounds

    run(over_http, problem[:32])  # warm-up
    started = time.perf_counter()
    lm, controller, rounds = run(over_http, problem)
    wall = time.perf_counter() - started
    final = controller.get_final_thoughts()[0]
    clock = AnswerClock()
    cpu = time.process_time()
    _, direct, _ = run(lambda prompt, n: [clock(prompt) for _ in range(n)], problem)
    engine = time.process_time() - cpu - clock.seconds
    return {
        "requests": lm.requests,
        "completions": lm.completions,
        "rounds": rounds,
        "wall": wall,
        "ops": len(direct.graph.operations),
        "engine": engine,
        "solved": bool(final and final[0].solved),
    }


# --- the parent --------------------------------------------------------------------------------
def child(system: str, size: int, latency: float, base_url: str, graph_file: str) -> None:
    if system == "thoughtgraph":
        figures = run_thoughtgraph(size, latency, base_url)
    else:
        figures = run_reference(size, latency, base_url, graph_file)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def measure(system: str, size: int, latency: float, base_url: str, graphs: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if system == "thoughtgraph":
        python = Path(sys.executable)
    else:
        python = reference_python()
        env["PYTHONPATH"] = os.pathsep.join([str(STUBS), str(ROOT / "src")])
    args = ["--child", system, "--size", str(size), "--latency", str(latency), "--url", base_url]
    args += ["--graphs", str(graphs)]
    out = subprocess.run(
        [str(python), __file__, *args], env=env, capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"{system} at {size} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--child", choices=["thoughtgraph", "reference"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--graphs", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.size, args.latency, args.url, args.graphs)
    sys.path.insert(0, str(HERE))
    from loopback import loopback_server

    reference_python()
    graphs = VENV / "graphs.json"  # got_paper per size (and 32 for the warm-up), as plain ops
    sizes = sorted({32, *args.sizes})
    graphs.write_text(json.dumps({n: got_paper(n).to_dict()["ops"] for n in sizes}))
    print(f"command: .venv/bin/python bench/reference.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; {REFERENCE} "
        f"(torch, transformers: empty stand-ins); got_paper on sorting; loopback server "
        f"latency {args.latency} s"
    )
    print(
        "| size | system | requests | completions | rounds | wall s | wall / floor | ms/op "
        "| peak RSS MiB | solved |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with loopback_server(args.latency) as base_url:
        for size in args.sizes:
            rows = {
                s: measure(s, size, args.latency, base_url, graphs)
                for s in ("reference", "thoughtgraph")
            }
            for system, f in rows.items():
                floor = f["rounds"] * args.latency
                ms_per_op = 1000 * f["engine"] / f["ops"]
                print(
                    f"| {size} | {system} | {f['requests']} | {f['completions']} | {f['rounds']} "
                    f"| {f['wall']:.3f} | {f['wall'] / floor:.2f} | {ms_per_op:.3f} "
                    f"| {f['peak_rss_mib']:.0f} | {f['solved']} |"
                )
            ref, ours = rows["reference"], rows["thoughtgraph"]
            print(
                f"|  | ratio | | | | {ours['wall'] / ref['wall']:.2f} | | "
                f"{(ours['engine'] / ours['ops']) / (ref['engine'] / ref['ops']):.2f} | | |"
            )


if __name__ == "__main__":
    main()
