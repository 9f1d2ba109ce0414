"""A task class of your own: the distinct products named in an order log, each once.

`thoughtgraph solve examples.products.task:Products ...` (run from the repository root). It
defines what docs/tasks.md calls the required part (`describe`, `format`, `parse`, `score`, and
`parse_input`, `render` to read and show the lines), and one optional hook, `matches_reference`:
a right answer lists the products in any order, so an answer is compared with the row's
reference as a set, not by equality. Its prompts are the baselines every task gets (`io`, `cot`,
`improve`, `paper_merge`; the spec's Part/Merge/Refine for `got`), built from `describe` and
`format`.
"""

import json
import re
from collections import Counter

from thoughtgraph import BaseTask, ParseError, Score

LIST = re.compile(r"\[[^\[\]]*\]")


class Products(BaseTask[list[str], list[str]]):
    name = "products"
    part_size = 6  # log lines a part
    unit_names = "lines"

    def parse_input(self, raw):
        lines = raw.splitlines() if isinstance(raw, str) else list(raw)
        return [str(line).strip() for line in lines if str(line).strip()]

    def describe(self, problem):
        return (
            "Each line of the order log names one product. List every distinct product the "
            "log names, each exactly once, written as in the log, in any order."
        )

    def format(self):
        return "a JSON list of strings, one product each"

    def render(self, value):
        return json.dumps(value)

    def parse(self, text):
        for found in reversed(LIST.findall(text)):  # the last list: after any working
            try:
                names = json.loads(found)
            except ValueError:
                continue
            if all(isinstance(name, str) for name in names):
                return names
        raise ParseError("the answer holds no JSON list of product names")

    def score(self, problem, content):
        named, listed = set(problem), Counter(content)
        errors = [f'"{name}" is missing: add it' for name in sorted(named - set(listed))]
        errors += [f'"{name}" is not in the log: remove it' for name in sorted(set(listed) - named)]
        errors += [
            f'"{name}" is listed {count} times: list it once'
            for name, count in sorted(listed.items())
            if count > 1
        ]
        return Score(float(len(errors)), tuple(errors))

    def matches_reference(self, problem, content, reference=None):
        if reference is None:
            return None  # no reference: unknown
        return content is not None and sorted(content) == sorted(reference)
