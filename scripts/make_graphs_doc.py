"""Regenerates docs/graphs.md from the op params models and the scheme builders.

.venv/bin/python scripts/make_graphs_doc.py
"""

import inspect
import subprocess
from pathlib import Path

from thoughtgraph.engine.kinds import all_kinds


def mer(s, size=32):
    return subprocess.run(
        [".venv/bin/thoughtgraph", "graph", s, "--size", str(size), "--format", "mermaid"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


ops_rows = []
for kind, record in all_kinds().items():
    model = record.params
    params = []
    for name, f in model.model_fields.items():
        default = "required" if f.is_required() else repr(f.default)
        params.append(f"`{name}` ({default})")
    doc = inspect.cleandoc(model.__doc__ or "").replace("\n", " ")
    ops_rows.append(f"| `{kind}` | {', '.join(params) or '—'} | {doc} |")
schemes = [
    (
        "io",
        "One request for the whole answer (`io` prompt), scored in code, compared with the reference.",
    ),
    ("cot", "Like `io` with the task's chain-of-thought prompt."),
    (
        "cot_sc",
        "Self-consistency: k chain-of-thought answers in one request (`n=k`, default 5), the best kept.",
    ),
    (
        "tot",
        "Tree of thoughts: k = 20 answers, best kept; then `levels - 1` rounds of k fixes (`improve` prompt) of the best, the best of the fixes *and* the previous best kept. Levels per size as in the reference implementation (sorting: 2 / 4 / 4 for 32 / 64 / 128).",
    ),
    ("tot2", "The narrower, deeper tree: k = 10, levels 3 / 7 / 10 for sorting 32 / 64 / 128."),
    (
        "got",
        "The spec's adaptive pattern: code split into chunks of 8, Part with up to 2 regenerations, pairwise Merge with 1 extra merge, Refine (kept only if better, at most 2 passes).",
    ),
    (
        "got_paper",
        "The paper's fixed configuration: the model splits into lists of 16 (one request), each sorted with Repeat 5 + keep best, pairwise merges with Repeat 10 + keep best, each merge fixed with Repeat 5 (10 for the final merge) + keep best including the unfixed merge.",
    ),
]
out = [
    "# Graphs of operations",
    "",
    "A run is a **graph of operations** (the paper's GoO): plain data, written before any model call. Each op has an `id`, a `kind`, the ids of the ops whose output thoughts it takes (`inputs`), and `params` checked against its kind. Ops with no inputs receive the problem itself. The graph must be a DAG with exactly one output op (nothing takes its output); the result is the best thought that op passes on.",
    "",
    "The controller runs an op as soon as all of its inputs are done, so independent ops overlap. With `--concurrency 1` ops run one at a time in exactly the BFS order of the reference controller (roots in file order; an op is queued when its last input finishes). A deterministic model gives the same run state (thoughts, ids, scores, output) at any concurrency.",
    "",
    "## Op kinds",
    "",
    "| kind | params (default) | what it does |",
    "|---|---|---|",
    *ops_rows,
    "",
    "Scores are error counts (lower is better, 0 is perfect) unless a model scorer says otherwise; `keep_best` takes `higher_is_better` for those. Prompt names refer to the graph file's own templates ([below](#prompts-in-the-graph-file)), the task's (`io`, `cot`, `improve`, `split`, `paper_merge` for sorting) or the spec's (`part`, `merge`, `refine`). A graph that names a prompt the task lacks, or splits into more parts than the input has, is refused before any call.",
    "",
    "Thought ids are structural: `part_2:0.1` is op `part_2`, input item 0, attempt 1; `gen:0.r2.3` is request 2, answer 3 of a branching op; `split:3` is the fourth chunk.",
    "",
    "## Schemes",
    "",
    "`thoughtgraph graph SCHEME --task sorting --size N --format json|yaml|mermaid|dot` prints any of them. When every call succeeds, requests / completions per sorting sample equal the reference implementation's:",
    "",
    "| sorting | io | cot | tot | tot2 | got_paper | got (spec) |",
    "|---|---|---|---|---|---|---|",
    "| 32 | 1/1 | 1/1 | 2/40 | 3/30 | 5/31 | 7/7 |",
    "| 64 | 1/1 | 1/1 | 4/80 | 7/70 | 11/71 | 15/15 |",
    "| 128 | 1/1 | 1/1 | 4/80 | 10/100 | 23/151 | 31/31 |",
    "",
]
for name, text in schemes:
    out += [f"### `{name}`", "", text, "", "```mermaid", mer(name).rstrip(), "```", ""]
out += [
    "## Your own graph file",
    "",
    "Write the ops as JSON or YAML (the [JSON Schema](graph.schema.json) lists every kind and param; `thoughtgraph schema` prints it). For example, a small tree of thoughts (`examples/tot_small.json`):",
    "",
    "```json",
    Path("examples/tot_small.json").read_text().rstrip(),
    "```",
    "",
    "```bash",
    ".venv/bin/thoughtgraph solve sorting --dataset sorting_032 --graph examples/tot_small.json",
    ".venv/bin/thoughtgraph graph got_paper --size 64 --format yaml > my_graph.yaml   # start from a scheme",
    ".venv/bin/thoughtgraph solve sorting --dataset sorting_064 --graph my_graph.yaml --trace run.json",
    "```",
    "",
    "A broken file (unknown op kind or param, a cycle, a dangling input, a wrong type, an unknown prompt) is refused before any model call with one line that names the op and the field, for example `error: g.json: op 2 ('b'): params.n: Input should be a valid integer, unable to parse string as an integer`.",
    "",
    "In Python the same graph is a `Graph` object:",
    "",
    "```python",
    "from thoughtgraph import Graph, Op, solve",
    "",
    "graph = Graph(ops=(",
    '    Op(id="first", kind="generate", params={"prompt": "io", "n": 4}),',
    '    Op(id="best", kind="keep_best", inputs=("first",)),',
    "))",
    'result = solve("sorting", [3, 1, 2], model="sim", graph=graph)',
    "```",
    "",
    "Your own task (its prompts, parser and scorer) is described in [tasks.md](tasks.md); add templates to its `prompts` dict and name them in your graph's ops.",
    "",
    "### Prompts in the graph file",
    "",
    "A graph file can carry the text of its own prompts: an optional top-level `prompts` maps a name to a template (the same Handlebars subset as the built-in prompts: `{{name}}`, `{{#if name}} ... {{else}} ... {{/if}}`, rendered in one pass, so a problem containing `{{task}}` is sent as is). An op whose `prompt` names one sends that text. For example (`examples/own_prompt.yaml`):",
    "",
    "```yaml",
    Path("examples/own_prompt.yaml").read_text().rstrip(),
    "```",
    "",
    "```bash",
    ".venv/bin/thoughtgraph solve sorting --dataset sorting_032 --graph examples/own_prompt.yaml",
    "```",
    "",
    "- **Lookup order: the graph's prompts, then the task's, then the spec's.** A graph prompt named like a task or spec prompt (`part`, `io`, ...) *replaces* it for that graph only: that is how `thoughtgraph tune --prompts` writes a tuned Part prompt into `best.yaml` while the ops still say `prompt: part` ([tuning.md](tuning.md)). It is never silent: the replacing text is in the file, next to the ops.",
    "- Every graph prompt must be used by some op (a misspelt name would otherwise be ignored): `prompts.prat: no op uses this prompt`.",
    "- A template may use only the values its op fills. Before any call, a graph whose prompt asks for another is refused in one line, e.g. `error: g.yaml: op 'gen': prompt 'mine' needs style, which a generate op does not fill (it fills: current, errors, format, input, ...)`; a template that does not parse is refused when the file is read (`prompts.mine: unclosed {{#if x}}`).",
    "- Prompt names are letters, digits and `_`. `Graph(ops=..., prompts={...})` does the same in Python; `graph.to_yaml()` writes multi-line prompts as literal blocks.",
    "",
    "## Run state, volume and latency",
    "",
    "`--trace PATH` writes the run state (the paper's GRS): every op (status, outputs, end round), every thought (content, raw answer, prompt, score, errors, valid, validated, solved, parents, previous attempt, attempt, kept, volume, latency), every call (prompt, answers, tokens, latency, cache hit), every edge, and `output_graph` in the reference implementation's layout (per op: thoughts, scored/scores, validated/validity, compared_to_ground_truth/problem_solved; then prompt/completion tokens and cost), so its plotting scripts can read it. `thoughtgraph.RunState.load(path)` reads it back.",
    "",
    "- **latency** of a thought: hops on the longest path from the input (the input is 0; split chunks count as hops).",
    "- **volume** of a thought: the model-made thoughts from which it can be reached along parents and previous attempts, **counting itself**; the input and code-made chunks are not counted. A chain of N answers ends with latency N and volume N, as in the paper's Table 2.",
    "",
    "The result and the CLI summary report both for the final thought.",
    "",
]
Path("docs/graphs.md").write_text("\n".join(out))
