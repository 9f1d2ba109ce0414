"""Capable models' real replies, from the Tree of Problems release, with the prompts they answered.

    .venv/bin/python bench/top_replies.py sample --mirror DIR --split heldout --n 120 --out FILE
    .venv/bin/python bench/top_replies.py scan --mirror DIR --split tune [--show]

The Tree of Problems release (github.com/ArmelRandy/tree-of-problems, Apache-2.0; Zebaze,
Sagot and Bawden 2024) holds, under `reasoning/`, gpt-3.5-turbo's and Llama-3-70B-Instruct's
replies to the Graph of Thoughts paper's sorting, set intersection and keyword counting: each
run is a tree of `answer_K.jsonl` levels (the inputs and the replies), `parent_K.jsonl` (which
node of level K-1 each node of level K belongs to). A node with children was asked to merge
their answers, a node without was asked to solve its input; the prompt is rebuilt from the
release's own templates (`top/got/prompts/`) and, for a merge, the children's answers cut out
as the release cuts them. DIR is a git directory of the release (`fetch` it or `git clone
--bare`); nothing of it is copied here.

Every reply has a split fixed by a hash of its place in the release (`tune`: rules may be
shaped with it in view; `heldout`: never looked at while shaping them). `sample` writes a
sample of one split for labelling by hand, its replies *unparsed* (tests/fixtures/real_answers/
top/ holds the labelled sample); `scan` parses a whole split and prints how often the parser's
reading differs from a plain reading (the last list or object after the reply's answer label),
the disagreements being where to look for misreads: it is meant for the `tune` split only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODELS = {
    "gpt-3.5-turbo": "reasoning/paper/gpt-3.5-turbo",
    "llama-3-70b-instruct": "reasoning/llama-3-70b-instruct-awq",
}
TASKS = {
    "sorting": "sorting",
    "set_intersection": "set-intersection",
    "keyword_counting": "keyword-counting",
}
TRIGGERS = ("Output:", "Merged list:", "Combined Output:")


@dataclass(frozen=True)
class Reply:
    """One reply of the release, with what a reader needs to read it."""

    id: str  # model/run/level/index: its place in the release
    model: str
    task: str  # our task's name
    kind: str  # "solve" or "merge"
    template: str  # the name of the prompt template (top/got/prompts/<kind>/<task>.txt)
    fields: dict[str, str]  # what the template is filled with
    input: Any  # the node's problem, as our task's parse_input takes it
    answer: str

    @property
    def split(self) -> str:
        """`tune` or `heldout`, by a hash of the reply's place (fixed before any labelling)."""
        return "tune" if hashlib.sha256(self.id.encode()).digest()[0] % 2 == 0 else "heldout"


class Release:
    """The release's files, read from its git directory."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        names = self._git("ls-tree", "-r", "--name-only", "HEAD").splitlines()
        self.names = set(names)

    def _git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(self.git_dir), *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def show(self, path: str) -> str:
        return self._git("show", f"HEAD:{path}")

    def template(self, name: str) -> str:
        return self.show(f"top/got/prompts/{name}.txt")

    def runs(self, model: str, task: str) -> list[str]:
        prefix = f"{MODELS[model]}/{task}/"
        return sorted({n.rsplit("/", 1)[0] for n in self.names if n.startswith(prefix)})


def replies(release: Release) -> Iterator[Reply]:
    """Every reply of the release to the three tasks, in a fixed order."""
    for model in MODELS:
        for folder, task in TASKS.items():
            for run in release.runs(model, folder):
                yield from _run_replies(release, model, folder, task, run)


def _run_replies(release: Release, model: str, folder: str, task: str, run: str) -> Iterator[Reply]:
    levels: list[list[dict[str, str]]] = []
    while f"{run}/answer_{len(levels)}.jsonl" in release.names:
        text = release.show(f"{run}/answer_{len(levels)}.jsonl")
        levels.append([json.loads(line) for line in text.splitlines() if line.strip()])
    children: list[dict[int, list[int]]] = []
    for level in range(1, len(levels)):
        parents = json.loads(release.show(f"{run}/parent_{level}.jsonl"))
        below: dict[int, list[int]] = {}
        for child, parent in sorted(parents.items(), key=lambda kv: int(kv[0])):
            below.setdefault(int(parent), []).append(int(child))
        children.append(below)
    for level, nodes in enumerate(levels):
        for index, node in enumerate(nodes):
            kids = children[level].get(index, []) if level < len(children) else []
            if kids:
                outputs = [_cut(levels[level + 1][k]["output"], folder) for k in kids]
                name, fields = _merge_fields(folder, outputs)
            else:
                name, fields = f"cot/{folder}", _solve_fields(folder, node["sentence"])
            yield Reply(
                id=f"{model}/{run.rsplit('/', 1)[1]}/{level}/{index}",
                model=model,
                task=task,
                kind="merge" if kids else "solve",
                template=name,
                fields=fields,
                input=_input(folder, node["sentence"]),
                answer=node["output"],
            )


def _cut(output: str, folder: str) -> str:
    """A child's answer as the release puts it in its parent's merge prompt."""
    output = output.strip()
    for trigger in TRIGGERS:
        if trigger in output:
            output = output[output.find(trigger) + len(trigger) :].strip()
    output = output.split("\n\n")[0].strip()
    if folder != "keyword_counting":
        output = output.split("\n")[0].strip()
    if folder == "set_intersection":
        if any(word in output.lower() for word in ("none", "no intersection")):
            output = "[]"
        if output.startswith("[,"):
            output = "[" + output[2:].strip()
    return output


def _merge_fields(folder: str, outputs: list[str]) -> tuple[str, dict[str, str]]:
    if folder == "sorting":
        length = len(json.loads(outputs[0])) if outputs[0].startswith("[") else 0
        return "merge/sorting", {
            "length": str(length),
            "length_combined": str(2 * length),
            "input_list1": outputs[0],
            "input_list2": outputs[1] if len(outputs) > 1 else "[]",
        }
    if folder == "keyword_counting":
        return "merge/keyword_counting", {
            "dictionary_1": outputs[0],
            "dictionary_2": outputs[1] if len(outputs) > 1 else "{}",
        }
    name = "merge/set_intersection_4" if len(outputs) == 4 else "merge/set_intersection"
    return name, {f"input{i + 1}": out for i, out in enumerate(outputs)}


def _solve_fields(folder: str, sentence: str) -> dict[str, str]:
    if folder == "sorting":
        return {"input": sentence}
    if folder == "set_intersection":
        set1, set2 = sentence.strip().split(" + ")
        return {"set1": set1, "set2": set2}
    return {"input_text": sentence}


def _input(folder: str, sentence: str) -> Any:
    if folder == "set_intersection":
        return [json.loads(s) for s in sentence.strip().split(" + ")]
    return sentence


def prompt_of(templates: dict[str, str], template: str, fields: dict[str, str]) -> str:
    """The prompt as the release sent it: its template filled (`{{` is a brace)."""
    return templates[template].strip().format(**fields)


def templates_of(release: Release) -> dict[str, str]:
    names = {"cot/" + f for f in TASKS} | {"merge/" + f for f in TASKS}
    return {name: release.template(name) for name in sorted(names | {"merge/set_intersection_4"})}


# Surface signs of the replies a reader may get wrong, found without parsing (a refusal, an
# example marker, "none", two lists side by side, a list opening with a comma, a lower-case
# key): `--risky` draws this many more among the replies that show one, so a random sample of
# replies 99.9% of which are plain still holds the hard ones.
RISKY = re.compile(
    r"(?i)provide|not given|such as|example|\bnone\b|\[\s*\]\s*,\s*\[|\[\s*,"
    r"|(?-i:\"[a-z][a-z ]*\"\s*:)"
)


def sample(release: Release, split: str, n: int, seed: int, risky: int = 0) -> list[Reply]:
    """`n` replies of `split`, spread evenly over (model, task, kind), drawn at random, and
    about `risky` more drawn among those showing a sign of `RISKY`, spread over the signs."""
    strata: dict[tuple[str, str, str], list[Reply]] = {}
    for reply in replies(release):
        if reply.split == split:
            strata.setdefault((reply.model, reply.task, reply.kind), []).append(reply)
    rng = random.Random(seed)
    chosen: list[Reply] = []
    per = max(1, n // len(strata))
    for key in sorted(strata):
        pool = strata[key]
        chosen.extend(rng.sample(pool, min(per, len(pool))))
    taken = {r.id for r in chosen}
    signs: dict[str, list[Reply]] = {}
    for key in sorted(strata):
        for reply in strata[key]:
            found = RISKY.search(reply.answer)
            if found and reply.id not in taken:
                sign = found.group(0).lower()
                signs.setdefault("a lower-case key" if sign.startswith('"') else sign, []).append(
                    reply
                )
    each = max(1, risky // len(signs)) if signs else 0
    for sign in sorted(signs):  # as many of each sign as it has, up to an even share
        chosen.extend(rng.sample(signs[sign], min(each, len(signs[sign]))))
    return chosen


_LAST = re.compile(r"(\[[^\[\]]*\]|\{[^{}]*\})")


def plain_reading(task: Any, reply: Reply, prompt: str) -> Any:
    """What a plain reader takes: the last list or object after the reply's last answer label."""
    text = reply.answer
    for trigger in TRIGGERS:
        if trigger in text:
            text = text[text.rfind(trigger) :]
    found = _LAST.findall(text)
    if not found:
        return None
    try:
        return task.parse(found[-1])
    except Exception:  # the plain reader's own failure: nothing to compare
        return None


def scan(release: Release, split: str, show: bool) -> None:
    from thoughtgraph.tasks import ParseError, get_task

    templates = templates_of(release)
    counts: Counter[str] = Counter()
    for reply in replies(release):
        if reply.split != split:
            continue
        task = get_task(reply.task)
        prompt = prompt_of(templates, reply.template, reply.fields)
        try:
            got: Any = task.parse_reply(reply.answer, task.parse_input(reply.input), prompt)
        except ParseError as exc:
            got = f"ParseError: {exc}"
        plain = plain_reading(task, reply, prompt)
        same = got == plain
        counts["same" if same else "differ"] += 1
        if show and not same:
            print(json.dumps({"id": reply.id, "parser": got, "plain": plain}))
            print("   ", reply.answer[-600:].replace("\n", "\n    "))
    print(dict(counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("sample", "scan"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--mirror", type=Path, required=True, help="the release's git directory")
        cmd.add_argument("--split", choices=("tune", "heldout"), required=True)
    sub.choices["sample"].add_argument("--n", type=int, default=120)
    sub.choices["sample"].add_argument("--risky", type=int, default=0)
    sub.choices["sample"].add_argument("--seed", type=int, default=29)
    sub.choices["sample"].add_argument(
        "--include", nargs="*", default=[], help="ids to add (the tune split's known misreads)"
    )
    sub.choices["sample"].add_argument("--out", type=Path, required=True)
    sub.choices["scan"].add_argument("--show", action="store_true")
    args = parser.parse_args()
    release = Release(args.mirror)
    if args.command == "scan":
        scan(release, args.split, args.show)
        return
    chosen = sample(release, args.split, args.n, args.seed, args.risky)
    wanted = set(args.include) - {r.id for r in chosen}
    chosen += [r for r in replies(release) if r.id in wanted and r.split == args.split]
    rows = [
        {
            "id": r.id,
            "split": r.split,
            "model": r.model,
            "task": r.task,
            "kind": r.kind,
            "prompt_of": r.template,
            "fields": r.fields,
            "input": r.input,
            "answer": r.answer,
        }
        for r in chosen
    ]
    out = {"templates": templates_of(release), "replies": rows}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(rows)} replies of the {args.split} split written to {args.out}")


if __name__ == "__main__":
    main()
