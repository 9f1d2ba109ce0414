"""The graph of operations (the paper's GoO): plain data, built and validated before any call.

An `Op` has an id, a kind, the ids of the ops whose output thoughts it takes, and params checked
against its kind's params model. A `Graph` is a list of ops that must form a DAG with one output
op, and optionally the text of its own prompt templates (`prompts`), so a graph file carries every
word it sends. Graphs round-trip through JSON and YAML and draw as Mermaid.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from thoughtgraph.engine import kinds
from thoughtgraph.engine.dag import topological
from thoughtgraph.engine.kinds import Params
from thoughtgraph.engine.worstcase import WorstCase, worst_case
from thoughtgraph.errors import GraphError, ThoughtgraphError, shown
from thoughtgraph.io.bounds import MAX_ITEMS
from thoughtgraph.io.strictload import RefusedDocument, TooDeepError, load_json, load_yaml
from thoughtgraph.tasks.prompts import PromptTemplate, TemplateError

PROMPT_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
_PROMPT_NAME = re.compile(PROMPT_NAME)
_GRAPH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # names result rows and traces
_TASK_NAME = re.compile(r"^\S(?:[^\n]{0,98}\S)?$")  # a task's name: one line, no edge spaces

# (params model, *sorted (name, type, value)) -> the validated params: a 10,000-op graph
# repeats a few param sets, and validating each again through pydantic was a tenth of its build.
# The params objects are frozen, so the ops that share a set share one object.
_CHECKED_PARAMS: dict[tuple[Any, ...], Params] = {}

P = TypeVar("P", bound=Params)

# thousands of nested [ or - : no graph is shaped like that
_TOO_DEEP = "nested too deeply to be a graph file"


class Op(BaseModel):
    """One operation. `params` is its kind's params model (`kinds.Params`), validated and
    completed with defaults: a graph file's `params: {...}` becomes that object, and writes back
    as the same mapping. Read it typed through `params_as(TheKindsParams)`."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$", max_length=200)
    kind: str
    inputs: tuple[str, ...] = ()
    params: SerializeAsAny[Params] = Field(default_factory=dict, validate_default=True)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in kinds.all_kinds():
            raise ValueError(
                f"unknown op kind {shown(kind)} (known: {', '.join(kinds.all_kinds())})"
            )
        return kind

    @field_validator("params", mode="before")
    @classmethod
    def _valid_params(cls, params: object, info: ValidationInfo) -> Params:
        kind = info.data.get("kind")
        if not isinstance(kind, str) or kind not in kinds.all_kinds():
            return Params()  # the kind's own error is reported
        model: type[Params] = kinds.get(kind).params
        if isinstance(params, Params):  # already checked (a copy of an op, a scheme's)
            if type(params) is not model:
                raise ValueError(f"params: {type(params).__name__} is not {model.__name__}")
            return params
        if not isinstance(params, dict):
            raise ValueError("params: Input should be a valid dictionary")
        key = _params_key(model, params)
        if key is not None and key in _CHECKED_PARAMS:
            return _CHECKED_PARAMS[key]
        try:
            checked = model.model_validate(params)
        except ValidationError as exc:
            raise ValueError(_first_error(exc)) from None
        if key is not None and len(_CHECKED_PARAMS) < 10_000:
            _CHECKED_PARAMS[key] = checked
        return checked

    def params_as(self, model: type[P]) -> P:
        """The params, typed as the kind's params model (an op function reads its own)."""
        params = self.params
        if not isinstance(params, model):
            raise TypeError(f"op {self.id!r} has {type(params).__name__}, not {model.__name__}")
        return params

    @property
    def prompt(self) -> str | None:
        """The template this op sends to the model, if it may call the model at all."""
        return self.params.prompt_of()


def _params_key(model: type[Params], params: dict[str, Any]) -> tuple[object, ...] | None:
    """The cache key of a params set: the params model (a kind may be registered again), and
    each value's type too (1, 1.0 and True are equal keys but not equally valid values); None
    when a value is unhashable (validated every time)."""
    try:
        key = (model, *((k, type(v), v) for k, v in sorted(params.items())))
        hash(key)
    except TypeError:
        return None
    return key


_OP_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,199}")
_OP_FIELDS_SET = {"id", "kind", "inputs", "params"}


def built_op(op_id: str, kind: str, inputs: tuple[str, ...], params: dict[str, Any]) -> Op:
    """An op from code that builds graphs (the schemes), equal to `Op(...)` of the same fields.

    A scheme's 10,000-op graph repeats a few kinds and params sets: an op with a known kind, a
    well-formed id and string inputs has its params checked by its kind's params model alone
    (what `Op` does with them), once per set (the next op with that set takes the checked
    params), and skips the rest of pydantic's validation, which its fields need no more of (a
    `got` graph of 32,768 numbers has 4,096 selects, each of its own index). Anything else (an
    unknown kind, an unhashable or bad params set, a bad id) is validated in full, so the
    errors are `Op`'s own. Graph files never come here: they are validated op by op.
    """
    spec = kinds.all_kinds().get(kind) if isinstance(kind, str) else None
    key = None if spec is None else _params_key(spec.params, params)
    if (
        spec is None
        or key is None
        or not isinstance(op_id, str)
        or _OP_ID.fullmatch(op_id) is None
        or type(inputs) is not tuple
        or not all(type(name) is str for name in inputs)
    ):
        return Op(id=op_id, kind=kind, inputs=inputs, params=params)
    checked = _CHECKED_PARAMS.get(key)
    if checked is None:
        try:
            checked = spec.params.model_validate(params)
        except ValidationError:
            return Op(id=op_id, kind=kind, inputs=inputs, params=params)  # its own error
        if len(_CHECKED_PARAMS) < 10_000:
            _CHECKED_PARAMS[key] = checked
    # what `Op.model_construct` sets, without its per-field loop (a third of its cost)
    op = object.__new__(Op)
    fields = {"id": op_id, "kind": kind, "inputs": inputs, "params": checked}
    object.__setattr__(op, "__dict__", fields)
    # one set for all: a frozen model's is only read (a copy gets its own), and 10,000 sets of
    # 4 names were a quarter of a big graph's memory
    object.__setattr__(op, "__pydantic_fields_set__", _OP_FIELDS_SET)
    object.__setattr__(op, "__pydantic_extra__", None)
    object.__setattr__(op, "__pydantic_private__", None)
    return op


_LABELS = frozenset({"name", "size", "task"})
"""The graph's fields that say what it is for, not what it does: a copy may change them."""


class Graph(BaseModel):
    """A validated DAG of ops with exactly one output (leaf) op.

    `prompts` maps a prompt name to the text of a Handlebars template the graph brings itself.
    An op naming that prompt sends this text: it comes before the task's prompts and the spec's
    (so `part` here replaces the spec's Part prompt for this graph only). Every one must be used
    by some op: a misspelt name would otherwise be ignored without a word.

    `name` (optional) is the graph's row in an evaluation (`eval --graph`; default: the file's
    name); `size` (optional) the problem size it was built for and `task` (optional) the name of
    the task it was built for (`tune` writes both): an evaluation at another size, and a solve or
    an evaluation of another task, refuse it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    ops: tuple[Op, ...]
    prompts: dict[str, str] = Field(default_factory=dict)
    name: str | None = None
    size: int | None = None
    task: str | None = None
    _index: dict[str, Op] = PrivateAttr(default_factory=dict)
    _templates: dict[str, PromptTemplate] = PrivateAttr(default_factory=dict)
    _output: Op | None = PrivateAttr(default=None)

    def model_post_init(self, _context: object) -> None:
        # found here, not on first use: a graph shared by runs (schemes.build) compares equal to
        # a fresh copy, whose private state is the same
        self._output = _validate(self.ops)
        self._index = {op.id: op for op in self.ops}
        self._templates = _parse_prompts(self.prompts, self.ops)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Graph:
        """pydantic's copy; one with other ops or prompts is built and checked anew (a copy
        keeps the original's derived structure: its output op, index and cached views)."""
        if update and not update.keys() <= _LABELS:
            fields = {name: getattr(self, name) for name in type(self).model_fields}
            return type(self)(**(fields | dict(update)))
        return super().model_copy(update=update, deep=deep)

    # What a run reads of its graph is cached on it (functools.cached_property, which pydantic
    # leaves alone): a private attribute is read through pydantic's __getattr__, after a failed
    # lookup, 2-5 us a read, and a sorting-32 run read these a dozen times.
    @functools.cached_property
    def templates(self) -> dict[str, PromptTemplate]:
        """The graph's own prompts, parsed once (name -> template)."""
        return self._templates

    @functools.cached_property
    def _ops_index(self) -> dict[str, Op]:
        return self._index  # (a dict: a graph with its cached views pickles)

    @property
    def ops_by_id(self) -> Mapping[str, Op]:
        """Each op by its id (a read-only view: `op()` reads the same index)."""
        return MappingProxyType(self._ops_index)

    # --- structure -------------------------------------------------------------------------
    def op(self, op_id: str) -> Op:
        return self._ops_index[op_id]

    def successors(self) -> dict[str, list[str]]:
        """The ops that read each op's thoughts (a new dict: yours to change)."""
        return {op_id: list(after) for op_id, after in self.successor_ids.items()}

    # What the scheduler reads of the graph, worked out once per graph (a scheme's graph is
    # built once per shape and shared by its runs: `schemes.build`), not once per run.
    @functools.cached_property
    def successor_ids(self) -> dict[str, tuple[str, ...]]:
        """The ops that read each op's thoughts, in graph order (read only)."""
        succ: dict[str, list[str]] = {op.id: [] for op in self.ops}
        for op in self.ops:
            for source in dict.fromkeys(op.inputs):
                succ[source].append(op.id)
        return {op_id: tuple(after) for op_id, after in succ.items()}

    @functools.cached_property
    def input_counts(self) -> dict[str, int]:
        """How many distinct ops each op waits for (read only: copy it to count down)."""
        return {op.id: len(set(op.inputs)) for op in self.ops}

    @functools.cached_property
    def root_ids(self) -> tuple[str, ...]:
        """The ops that read the input itself."""
        return tuple(op.id for op in self.ops if not op.inputs)

    @functools.cached_property
    def in_place_ids(self) -> frozenset[str]:
        """The ops whose kind runs where the scheduler stands (code that never waits)."""
        return frozenset(op.id for op in self.ops if kinds.get(op.kind).runs_in_place(op.params))

    @functools.cached_property
    def output(self) -> Op:
        """The op whose thoughts are the run's result (the only op nothing depends on)."""
        assert self._output is not None  # found by model_post_init's checks
        return self._output

    def worst_case(self) -> WorstCase | None:
        """The most this graph can ask of the model (`worstcase.py`), from its caps alone;
        None when an op's kind does not bound itself."""
        return worst_case(self.ops)

    @functools.cached_property
    def rates_with_model(self) -> bool:
        """Does a score op ask the model for a rating (`scorer="model"`), not code?"""
        return any(
            op.kind == "score" and getattr(op.params, "scorer", None) == "model" for op in self.ops
        )

    @functools.cached_property
    def call_kinds(self) -> tuple[str, ...]:
        """The kinds of call its ops may make, sorted: their prompts' names, a merge of more
        than two being a merge (as the calls are recorded and `--model-for` routes them)."""
        names = {op.prompt for op in self.ops if op.prompt is not None}
        return tuple(sorted({"merge" if name == "merge_many" else name for name in names}))

    def bfs_order(self) -> list[str]:
        """The controller's order: roots first, then each successor once all its inputs ran."""
        order, _cyclic = topological({op.id: list(dict.fromkeys(op.inputs)) for op in self.ops})
        return order

    def summary(self) -> str:
        """One line such as `split → 4 × generate → 3 × aggregate → refine`."""
        groups: list[tuple[str, int]] = []
        for op_id in self.bfs_order():
            kind = self.op(op_id).kind
            if kinds.get(kind).plumbing:
                continue
            if groups and groups[-1][0] == kind:
                groups[-1] = (kind, groups[-1][1] + 1)
            else:
                groups.append((kind, 1))
        return " → ".join(kind if n == 1 else f"{n} × {kind}" for kind, n in groups)

    # --- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The file form; `name`, `task`, `size` and `prompts` only when the graph has them
        (older files stay the same)."""
        data: dict[str, Any] = {}
        if self.name is not None:
            data["name"] = self.name
        if self.task is not None:
            data["task"] = self.task
        if self.size is not None:
            data["size"] = self.size
        data["ops"] = [op.model_dump(mode="json") for op in self.ops]
        if self.prompts:
            data["prompts"] = dict(self.prompts)
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: object) -> Graph:
        """Build and validate a graph; any problem becomes one `GraphError` line."""
        if not isinstance(data, dict) or not isinstance(data.get("ops"), list):
            raise GraphError('a graph must be an object with a list "ops"')
        ops = []
        for index, raw in enumerate(data["ops"]):
            where = f"op {index + 1}" + (
                f" ({shown(raw.get('id'))})" if isinstance(raw, dict) else ""
            )
            try:
                ops.append(Op.model_validate(raw))
            except ValidationError as exc:
                raise GraphError(f"{where}: {_first_error(exc)}") from None
        extra = set(data) - {"ops", "prompts", "name", "size", "task"}
        if extra:
            raise GraphError(f"unknown graph field(s): {', '.join(sorted(extra))}")
        name, size = data.get("name"), data.get("size")
        if name is not None and (not isinstance(name, str) or not _GRAPH_NAME.match(name)):
            raise GraphError(
                '"name" must be letters, digits, ".", "_" or "-" (at most 64), '
                f"got {str(name)[:80]!r}"
            )
        if size is not None and (type(size) is not int or not 1 <= size <= MAX_ITEMS):
            raise GraphError(f'"size" must be a whole number from 1 to {MAX_ITEMS:,}, got {size!r}')
        task = data.get("task")
        if task is not None and (not isinstance(task, str) or not _TASK_NAME.match(task)):
            raise GraphError(
                f'"task" must be the name of a task (at most 100 characters), got {shown(task)}'
            )
        prompts = {} if data.get("prompts") is None else data["prompts"]
        if not isinstance(prompts, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in prompts.items()
        ):
            raise GraphError('"prompts" must map prompt names to template texts')
        return cls(ops=tuple(ops), prompts=prompts, name=name, size=size, task=task)

    @classmethod
    def from_json(cls, text: str) -> Graph:
        try:
            data = load_json(text)
        except json.JSONDecodeError as exc:
            raise GraphError(f"graph JSON is invalid: {exc.msg} at line {exc.lineno}") from None
        except TooDeepError:
            raise GraphError(_TOO_DEEP) from None
        except RefusedDocument as exc:
            raise GraphError(f"graph JSON is invalid: {exc}") from None
        return cls.from_dict(data)

    def to_yaml(self) -> str:
        """YAML with multi-line texts (the graph's prompts) as literal blocks, readable as
        written."""
        import yaml

        class Dumper(yaml.SafeDumper):
            pass

        def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
            style = "|" if "\n" in value else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        Dumper.add_representer(str, text)
        return yaml.dump(self.to_dict(), Dumper=Dumper, sort_keys=False, allow_unicode=True)

    @classmethod
    def from_yaml(cls, text: str) -> Graph:
        import yaml

        try:
            data = load_yaml(text)
        except TooDeepError:
            raise GraphError(_TOO_DEEP) from None
        except RefusedDocument as exc:
            raise GraphError(f"graph YAML is invalid: {exc}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            raise GraphError(f"graph YAML is invalid{where}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Graph:
        """Read a graph file: JSON (`.json`) or YAML (`.yaml`, `.yml`)."""
        from thoughtgraph.io.bounds import MAX_GRAPH_FILE_BYTES, read_file

        path = Path(path)
        try:  # a regular file of bounded size: a FIFO or /dev/zero is refused, not waited on
            text = read_file(path, MAX_GRAPH_FILE_BYTES, "graph file")
        except ThoughtgraphError as exc:
            raise GraphError(str(exc)) from None
        try:
            if path.suffix.lower() in (".yaml", ".yml"):
                return cls.from_yaml(text)
            return cls.from_json(text)
        except GraphError as exc:
            raise GraphError(f"{path}: {exc}") from None
        except RecursionError:  # a graph's data nested past what its reader walks
            raise GraphError(f"{path}: {_TOO_DEEP}") from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of graph files: one entry per op kind with its params."""
    variants = []
    for kind, record in kinds.all_kinds().items():
        params = record.params
        schema = params.model_json_schema()
        schema.pop("title", None)
        variants.append(
            {
                "title": kind,
                "description": inspect.cleandoc(params.__doc__ or ""),
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_.-]*$"},
                    "kind": {"const": kind},
                    "inputs": {"type": "array", "items": {"type": "string"}, "default": []},
                    "params": schema,
                },
                "required": ["id", "kind"],
                "additionalProperties": False,
            }
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://thoughtgraph.dev/schemas/graph.json",
        "title": "thoughtgraph graph of operations",
        "description": "A DAG of ops with one output op, fixed before any call. A part may "
        "grow at run time (a generate op's `grow`), within caps the graph states: its worst "
        "case, the most requests its caps allow, is known before the first call "
        "(`thoughtgraph graph --json`, docs/graphs.md).",
        "type": "object",
        "properties": {
            "name": {
                "description": "The graph's name: its row in an evaluation (`eval --graph`; "
                "default: the file's name).",
                "type": "string",
                "pattern": _GRAPH_NAME.pattern,
            },
            "task": {
                "description": "The name of the task the graph was built for (`tune` writes it): "
                "a solve or an evaluation of another task refuses the graph.",
                "type": "string",
                "pattern": _TASK_NAME.pattern,
            },
            "size": {
                "description": "The problem size the graph was built for (`tune` writes it): an "
                "evaluation at another size refuses the graph.",
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_ITEMS,
            },
            "ops": {"type": "array", "minItems": 1, "items": {"oneOf": variants}},
            "prompts": {
                "description": "The graph's own prompt templates (Handlebars: {{name}}, "
                "{{#if name}}...{{else}}...{{/if}}), by name. An op whose `prompt` names one "
                "sends it, in place of the task's or the spec's prompt of that name; each must "
                "be used by some op.",
                "type": "object",
                "propertyNames": {"pattern": PROMPT_NAME},
                "additionalProperties": {"type": "string"},
            },
        },
        "required": ["ops"],
        "additionalProperties": False,
    }


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
    if loc == "params" and err["type"] == "value_error":
        # the params model already named the field ("n: ..."); a whole-params error says so
        return msg if msg.startswith("params") else f"params.{msg}"
    if err["type"] == "missing":
        msg = "required field missing"
    return f"{loc}: {msg}" if loc else msg


def _parse_prompts(prompts: dict[str, str], ops: tuple[Op, ...]) -> dict[str, PromptTemplate]:
    """Each of the graph's prompts parsed; a bad name, a broken template or an unused prompt is
    one `GraphError` line."""
    used = {op.prompt for op in ops} | {
        prompt for op in ops for _kind, prompt in op.params.grown_prompts()
    }
    parsed = {}
    for name, source in prompts.items():
        if not _PROMPT_NAME.match(name):
            raise GraphError(f"prompts: {shown(name)} is not a prompt name (letters, digits, _)")
        if name not in used:
            raise GraphError(f"prompts.{name}: no op uses this prompt")
        try:
            parsed[name] = PromptTemplate(source)
        except TemplateError as exc:
            raise GraphError(f"prompts.{name}: {exc}") from None
    return parsed


def _inputs_first(ops: tuple[Op, ...]) -> bool:
    """Does every op come after the ops it takes? Then there is no cycle (every edge points
    forward), and the topological sort, a tenth of a 10,000-op build, is not needed: the
    schemes list their ops this way; a graph file may not."""
    listed: set[str] = set()
    for op in ops:
        if not listed.issuperset(op.inputs):
            return False
        listed.add(op.id)
    return True


def _validate(ops: tuple[Op, ...]) -> Op:
    """Check the ops form a DAG with one output op; returns that op."""
    if not ops:
        raise GraphError("a graph needs at least one op")
    seen: set[str] = set()
    for op in ops:
        if op.id in seen:
            raise GraphError(f"duplicate op id {shown(op.id)}")
        seen.add(op.id)
    for op in ops:
        for source in op.inputs:
            if source == op.id:
                raise GraphError(
                    f"op {shown(op.id)} takes its own output as input (cycle: {op.id})"
                )
            if source not in seen:
                raise GraphError(f"op {shown(op.id)} has unknown input {shown(source)}")
    if not _inputs_first(ops):
        try:
            tuple(TopologicalSorter({op.id: op.inputs for op in ops}).static_order())
        except CycleError as exc:
            cycle = exc.args[1]
            raise GraphError(f"the graph has a cycle: {' → '.join(cycle)}") from None
    used = {source for op in ops for source in op.inputs}
    leaves = [op.id for op in ops if op.id not in used]
    if len(leaves) != 1:
        raise GraphError(
            f"a graph needs exactly one output op (nothing takes its output); found {len(leaves)}: "
            + ", ".join(leaves)
        )
    return next(op for op in ops if op.id == leaves[0])
