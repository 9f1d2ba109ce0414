"""A task from anywhere: a built-in name, an import string, an installed plugin, a task file,
or a task object checked once (`get_task`, where every task enters).

`get_task` calls `load_task` for every string, so `solve`, `eval`, `tune`, `graph` and the
Python API accept the same four forms, checked before any model call:

- a built-in name (`sorting`);
- a task file path ending in .yaml, .yml or .toml (tasks/taskfile.py);
- an import string `package.module:Attribute`, imported from the current directory and the
  Python path; the attribute may be a Task instance, a class or a factory (called with no
  arguments);
- a name an installed distribution declares in the entry point group `thoughtgraph.tasks`
  (`pip install my-tasks` adds it), loaded the same way as an import string.

A task loaded from a file, an import string or a plugin is remembered under its `name` for the
rest of the process, so code that carries the task by name (an evaluation plan, a scheme's
configuration) finds it again. A loaded task may not take a built-in task's name. A task's own
`prompts` may be plain template texts: `check_task` reads them as templates, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

from thoughtgraph.conforms import conforms
from thoughtgraph.errors import UnknownNameError, shown
from thoughtgraph.io.imports import first_line, import_string, is_import_string
from thoughtgraph.tasks.base import REQUIRED_METHODS, BaseTask, FewShotPrompts, Task
from thoughtgraph.tasks.docmerge import DocMergeTask
from thoughtgraph.tasks.duck import DuckTask
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.prompts import PromptTemplate, TemplateError, read_templates
from thoughtgraph.tasks.sets import SetIntersectionTask
from thoughtgraph.tasks.sorting import SortingTask

ENTRY_POINT_GROUP = "thoughtgraph.tasks"
TASK_FILE_SUFFIXES = (".yaml", ".yml", ".toml")

TASKS: dict[str, type[BaseTask[Any, Any]]] = {
    "sorting": SortingTask,
    "set-intersection": SetIntersectionTask,
    "keyword-counting": KeywordCountingTask,
    "doc-merge": DocMergeTask,
}
"""The built-in tasks by name."""

_LOADED: dict[str, BaseTask[Any, Any]] = {}
"""Tasks loaded by this process (files, import strings, plugins), by their name."""


def get_task(task: str | Task[Any, Any]) -> BaseTask[Any, Any]:
    """A task by built-in name, task file path, `package.module:Class` import string or
    installed plugin name, or the task object itself once `check_task` found it complete (one
    written from scratch with `BaseTask`'s defaults, tasks/duck.py). Every way it can fail is
    one `UnknownNameError` line."""
    if not isinstance(task, str):
        return check_task(task)
    return load_task(task, TASKS)


def check_task(task: object) -> BaseTask[Any, Any]:
    """`task` as a `BaseTask` (itself, or a `DuckTask` around it), or one `UnknownNameError`
    line naming every missing method.

    Checked once, before any call, so that a user's task never fails half-way through a paid run
    with a raw `AttributeError`.
    """
    missing = [m for m in REQUIRED_METHODS if not callable(getattr(task, m, None))]
    if not isinstance(getattr(task, "name", None), str):
        missing.insert(0, "name")
    if missing:
        raise UnknownNameError(
            f"not a task: {type(task).__name__} lacks {', '.join(missing)} "
            "(give a task name or a Task object; subclass thoughtgraph.BaseTask for defaults)"
        )
    checked = task if isinstance(task, BaseTask) else DuckTask(cast(Task[Any, Any], task))
    if conforms(checked, FewShotPrompts):
        _read_prompts(checked)
    return checked


def _read_prompts(task: BaseTask[Any, Any]) -> None:
    """The task's own `prompts` as templates, each text read once, here (a dict of plain
    strings is the natural way to write them); a text that is no template is one line, before
    any call. Kept on the task object, so a second check finds templates and reads nothing."""
    own = cast(FewShotPrompts, task).prompts
    if isinstance(own, Mapping) and all(isinstance(t, PromptTemplate) for t in own.values()):
        return
    templates = read_templates(task.name, own)
    try:
        cast(Any, task).prompts = templates
    except AttributeError:  # a read-only property: the texts cannot be kept parsed
        raise TemplateError(
            f"task {shown(task.name)}: prompts is read-only and holds texts: give "
            "PromptTemplate values (thoughtgraph.PromptTemplate(text))"
        ) from None


def plugins() -> dict[str, EntryPoint]:
    """The installed plugins' task names -> their entry points (the first of a repeated name)."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name.strip().lower(), entry)
    return found


def known_names(builtins: dict[str, type]) -> list[str]:
    """Every name `get_task` takes as a bare word: built-ins, plugins, tasks loaded so far."""
    return sorted({*builtins, *plugins(), *_LOADED})


def loaded(name: str) -> BaseTask[Any, Any] | None:
    """A task this process loaded under `name` (not a built-in), or None."""
    return _LOADED.get(name.strip().lower())


def remember(task: BaseTask[Any, Any]) -> BaseTask[Any, Any]:
    """Keep a task loaded elsewhere under its name for the rest of the process, as if this
    process had loaded it (a Ray worker given the task its driver loaded)."""
    _LOADED[task.name.strip().lower()] = task
    return task


def load_task(spec: str, builtins: dict[str, type]) -> BaseTask[Any, Any]:
    """The task `spec` names, in any of the four forms; one `error:` line when it cannot."""
    text = spec.strip()
    key = text.lower()
    if key in builtins:
        return check_task(builtins[key]())
    if text.lower().endswith(TASK_FILE_SUFFIXES):
        from thoughtgraph.tasks.filetask import load_task_file

        return _remember(load_task_file(Path(text)), f"task file {text}", builtins)
    if is_import_string(text):
        return _remember(_made(import_string(text, "task"), text), f"task {shown(text)}", builtins)
    entry = plugins().get(key)
    if entry is not None:
        return _remember(_from_plugin(entry), f"plugin task {shown(entry.name)}", builtins)
    if key in _LOADED:
        return _LOADED[key]
    if ":" in text or "/" in text or "\\" in text or text.endswith((".py", ".json")):
        raise UnknownNameError(
            f"unknown task {shown(spec)}: give a built-in name, package.module:Class, an installed "
            "plugin's name or a task file (.yaml, .yml, .toml)"
        )
    raise UnknownNameError(
        f"unknown task {shown(spec)} (known: {', '.join(known_names(builtins))}; or give "
        "package.module:Class or a task file)"
    )


def _from_plugin(entry: EntryPoint) -> BaseTask[Any, Any]:
    where = f"plugin {shown(entry.name)} ({entry.value})"
    try:
        found = entry.load()
    except ModuleNotFoundError as exc:
        raise UnknownNameError(
            f"cannot load task {where}: no module named {shown(exc.name)}"
        ) from None
    except AttributeError:
        raise UnknownNameError(f"cannot load task {where}: its attribute is missing") from None
    except Exception as exc:
        raise UnknownNameError(
            f"cannot load task {where}: importing raised {first_line(exc)}"
        ) from None
    return _made(found, where)


def _made(found: object, where: str) -> BaseTask[Any, Any]:
    """A Task instance as is; a class or a factory called with no arguments."""
    if isinstance(found, type) or (callable(found) and not isinstance(found, _ParsesAndScores)):
        try:
            found = found()
        except Exception as exc:
            raise UnknownNameError(
                f"cannot load task {where}: calling it raised {first_line(exc)}"
            ) from None
    try:
        return check_task(found)
    except UnknownNameError as exc:
        raise UnknownNameError(f"{where} is {exc}") from None


@runtime_checkable
class _ParsesAndScores(Protocol):
    """What tells a callable task instance (kept as it is) from a factory (called)."""

    def parse(self, text: str) -> object: ...

    def score(self, problem: object, content: object) -> object: ...


def _remember(
    task: BaseTask[Any, Any], where: str, builtins: dict[str, type]
) -> BaseTask[Any, Any]:
    name = task.name.strip().lower()
    if name in builtins and type(task) is not builtins[name]:
        raise UnknownNameError(
            f"{where} is named {shown(task.name)}, a built-in task's name: give it another name"
        )
    _LOADED[name] = task
    return task
