"""Task files: a `Task` declared in YAML or TOML, for the common shapes of long, exact work.

Why: GoT on a new problem should not need a Python class. A task file says what the task is
(its description and answer format), what an answer is (a list of integers or of strings, a
mapping of names to counts, free text), how code splits a problem (items, sentences,
paragraphs, lines) and joins answers (concatenate, union, add counts, by the model), and how an
answer is scored (against the row's reference, by a Python function, or by the model with a
rubric). The file is checked against `TaskFileSpec` (its JSON Schema is `thoughtgraph schema
task`) before any call; every mistake is one line naming the key. `tasks/filetask.py` is the
task it declares.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtgraph.errors import InputError
from thoughtgraph.io.bounds import MAX_ITEMS, MAX_TASK_FILE_BYTES, read_file
from thoughtgraph.io.strictload import RefusedDocument, load_toml, load_yaml

AnswerType = Literal["integers", "strings", "counts", "text"]
SplitBy = Literal["items", "sentences", "paragraphs", "lines"]
JoinBy = Literal["concatenate", "union", "add", "model"]
ScoreBy = Literal["reference", "function", "model"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AnswerSpec(_Strict):
    """What an answer is, and how code compares it with a reference."""

    type: AnswerType = Field(
        description="integers, strings (each a JSON list), counts (a JSON object name -> "
        "count) or text (free text)"
    )
    ordered: bool = Field(
        False,
        description="lists: the order counts (an order error for every adjacent pair out of "
        "the reference's order); default false",
    )
    case_sensitive: bool = Field(
        False, description="strings and count names: 'Ada' and 'ada' differ; default false"
    )
    from_input: bool = Field(
        False,
        description="every item of an answer is taken from the input, as written (a name in "
        "the text, a number of the list): code can then check a part's answer against the "
        "part, and derive a part's reference from the row's",
    )


class SplitSpec(_Strict):
    """How code cuts a problem into parts (the spec's `got`, `got_paper` with a code split)."""

    by: SplitBy = Field(
        description="items (a JSON list, or one item a line), sentences, paragraphs (blank "
        "lines between) or lines"
    )
    parts: int | None = Field(
        None, ge=1, le=MAX_ITEMS, description="default number of parts (else one per part_size)"
    )
    part_size: int = Field(
        4, ge=1, le=MAX_ITEMS, description="units per part when parts is not given; default 4"
    )


class ScoreSpec(_Strict):
    """How an answer is scored."""

    by: ScoreBy = Field(
        description="reference (missing, extra and order errors against the row's reference), "
        "function (a Python function), or model (the model rates it with the rubric; higher "
        "is better)"
    )
    function: str | None = Field(
        None,
        description="by: function: package.module:function taking (answer, problem) and "
        "returning an error count, (count, [errors]) or a thoughtgraph Score",
    )
    rubric: str | None = Field(
        None, min_length=1, max_length=8000, description="by: model: what makes an answer good"
    )
    samples: int = Field(3, ge=1, le=20, description="by: model: ratings per answer, averaged")
    scale: int = Field(10, ge=1, le=100, description="by: model: ratings go from 0 to scale")


class TaskFileSpec(_Strict):
    """A task file: a Task declared without code (docs/tasks.md, "Task files")."""

    name: str = Field(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$",
        description="the task's name: lower-case letters, digits, - and _",
    )
    description: str = Field(
        min_length=1, max_length=8000, description="the {{task}} text: what to do, in full"
    )
    format: str | None = Field(
        None,
        max_length=2000,
        description="the {{format}} text: how to write the answer (default: from answer.type)",
    )
    answer: AnswerSpec
    split: SplitSpec
    join: JoinBy = Field(
        description="how answers to parts combine: concatenate, union (each item once), add "
        "(counts), or model (only the model's merge; no code join)"
    )
    score: ScoreSpec


def task_file_schema() -> dict[str, Any]:
    """The JSON Schema of task files (`thoughtgraph schema task`)."""
    schema = TaskFileSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "thoughtgraph task file"
    return schema


def read_task_file(path: Path) -> TaskFileSpec:
    """Read, parse and validate a task file (no import of a scoring function yet)."""
    where = f"task file {path}"
    if not path.exists():
        raise InputError(f"cannot read {where}: no such file")
    return parse_task_file(read_file(path, MAX_TASK_FILE_BYTES, "task file"), path)


def parse_task_file(text: str, path: Path) -> TaskFileSpec:
    """Parse and validate the text of the task file at `path` (read by `read_task_file`, or
    shipped to another process, e.g. a Ray worker where the path may not exist)."""
    where = f"task file {path}"
    try:
        data = load_toml(text) if path.suffix.lower() == ".toml" else load_yaml(text)
    except RefusedDocument as exc:  # a repeated key, an alias bomb, nesting, a long number
        raise InputError(f"{where}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML: {_one_line(str(exc))}") from None
    except Exception as exc:  # yaml.YAMLError and its relatives
        raise InputError(f"{where}: not valid YAML: {_one_line(str(exc))}") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: must be a mapping of keys (name, description, answer, ...)")
    try:
        spec = TaskFileSpec.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: {_first_problem(exc)}") from None
    problem = _inconsistency(spec)
    if problem:
        raise InputError(f"{where}: {problem}")
    return spec


def _inconsistency(spec: TaskFileSpec) -> str | None:
    """Keys that are valid alone but not together, as one `key: what is wrong` line."""
    kind, score = spec.answer.type, spec.score
    for key, text in (
        ("description", spec.description),
        ("format", spec.format),
        ("score.rubric", score.rubric),
    ):
        if text is not None and not text.strip():  # the prompt would say nothing
            return f"{key}: is blank: write what it should say" + (
                " (or leave format out for the default)" if key == "format" else ""
            )
    if spec.join == "add" and kind != "counts":
        return f"join: add needs answer.type: counts, not {kind}"
    if spec.join == "union" and kind not in ("integers", "strings"):
        return f"join: union needs answer.type: integers or strings, not {kind}"
    if score.by == "function" and not score.function:
        return "score.function: required when score.by is function (package.module:function)"
    if score.by != "function" and score.function:
        return f"score.function: only with score.by: function, not {score.by}"
    if score.by == "model" and not score.rubric:
        return "score.rubric: required when score.by is model (what makes an answer good)"
    if score.by != "model" and score.rubric:
        return f"score.rubric: only with score.by: model, not {score.by}"
    if score.by == "reference" and kind == "text":
        return (
            "score.by: reference needs a list or counts answer; "
            "score free text by model or function"
        )
    if spec.answer.ordered and kind not in ("integers", "strings"):
        return f"answer.ordered: only lists have an order, not {kind}"
    if spec.answer.from_input and kind == "text":
        return "answer.from_input: only lists and counts are made of items of the input"
    return None


def _first_problem(exc: ValidationError) -> str:
    """Pydantic's first error as `key: what is wrong` (and how many more there are)."""
    errors = exc.errors()
    first = errors[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    kind = first["type"]
    if kind == "extra_forbidden":
        parent = _model_at(first["loc"][:-1])
        known = ", ".join(parent.model_fields) if parent is not None else ""
        message = f"unknown key (known: {known})" if known else "unknown key"
    elif kind == "missing":
        message = "required"
    elif kind == "literal_error":
        expected = str(first.get("ctx", {}).get("expected", ""))
        message = "must be one of " + expected.replace("'", "").replace(" or ", ", ")
    elif kind == "string_pattern_mismatch" and key == "name":
        message = "use lower-case letters, digits, - and _ (at most 64; a letter or digit first)"
    else:
        message = first["msg"][:1].lower() + first["msg"][1:]
    more = len(errors) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return f"{key}: {message}"


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    model: type[BaseModel] = TaskFileSpec
    for part in loc:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()[:200]
