"""What a Ray worker needs to run an evaluation's pairs with the driver's task and model.

A Ray worker starts as an empty Python process. A task the driver loaded from a task file, an
import string or a plugin is remembered by name in the driver only (tasks/loading.py); a
relative task-file path names another file, or none, from the worker's working directory; and
a user's module next to the driver (`mytasks:EvensTask`, `--model py:mymodels:answer`) is not
on the worker's import path. So the driver packs a `Shipment`: the task as it was given (the
task file's text, read once by the driver; an import string or plugin name; a task object
pickled by value where it can be), the driver's import path with its working directory first,
and the model's spec (or the model object, pickled). Each worker unpacks it once per process:
it adds the driver's path entries it lacks, loads the task the way the driver did and
remembers it under its name, so the schemes build the same graphs there as here.

Whatever cannot travel is refused in the driver (`pack`) or by one probe task on the cluster
(`ray_backend.check_worker`), as one line, before any model call.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

from thoughtgraph.errors import InputError, ThoughtgraphError, shown
from thoughtgraph.evaluation.runner import EvalPlan
from thoughtgraph.io.bounds import MAX_TASK_FILE_BYTES, read_file
from thoughtgraph.io.imports import first_line, is_import_string
from thoughtgraph.models.base import LanguageModel
from thoughtgraph.modelspec import ModelLike, as_model, filled_in, identity
from thoughtgraph.tasks import TASKS, BaseTask, Task, get_task
from thoughtgraph.tasks.filetask import load_task_file
from thoughtgraph.tasks.loading import TASK_FILE_SUFFIXES, loaded, plugins, remember
from thoughtgraph.tuning.jobs import Setup, model_from_recipe


@dataclass(frozen=True)
class Shipment:
    """How a worker loads the evaluation's task and model again (plain, picklable data)."""

    payload: bytes  # the work's shared object (an `EvalPlan`, a tune's `Setup`) without its
    # task object, pickled: it may hold a user's types, so it is unpickled only once the
    # driver's path is in place
    task: str  # the task's name (the plan's `task`)
    task_fields: tuple[str, ...] = ("spec", "resolved")  # the payload's fields the loaded task
    # goes into (a plan's task as given and its task object; a tune setup's `task_spec`)
    spec: str | None = None  # an import string, a plugin's name or a task file's path, as given
    text: str | None = None  # the task file's text, read by the driver
    pickled_task: bytes | None = None  # a task object (the Python API, or a name only loaded here)
    remembered: bool = False  # the driver remembers the task by name (files, modules, plugins)
    model_spec: str | None = None  # `sim`, `openai:MODEL`, `py:pkg.mod:fn`
    model_options: tuple[tuple[str, Any], ...] = ()  # the openai flags
    pickled_model: bytes | None = None  # a model object given to the Python API
    models: tuple[tuple[str, str], ...] = ()  # the kinds routed to other models: kind -> spec
    paths: tuple[str, ...] = ()  # the driver's import path, absolute, its working directory first

    @property
    def simulated(self) -> bool:
        return (self.model_spec or "").strip().lower().startswith("sim")

    @property
    def key(self) -> str:
        """What identifies the shipment in a worker's memory of what it unpacked."""
        digest = hashlib.sha256()
        parts = (self.task, self.spec, self.text, self.model_spec, repr(self.model_options))
        for part in (*parts, repr(self.models)):
            digest.update(repr(part).encode())
        digest.update(repr(self.remembered).encode())
        for blob in (self.payload, self.pickled_task, self.pickled_model):
            digest.update(blob or b"")
        return digest.hexdigest()


def pack(
    the_plan: EvalPlan,
    model: ModelLike,
    model_options: Mapping[str, object] | None = None,
    models: Mapping[str, str] | None = None,
) -> Shipment:
    """The shipment of a plan, its task and its model (a spec string, or a model object), and
    the specs of the kinds routed to other models; one `InputError` line for what cannot be
    sent to a worker."""
    options = tuple(sorted((k, v) for k, v in (model_options or {}).items() if v is not None))
    shipment = Shipment(
        payload=pickled(
            replace(the_plan, spec=None, resolved=None), f"evaluation of {shown(the_plan.task)}"
        ),
        task=the_plan.task,
        remembered=loaded(the_plan.task) is not None,
        paths=_driver_paths(),
        model_options=options,
        models=tuple(sorted((models or {}).items())),
    )
    shipment = replace(shipment, **_task_fields(the_plan.task_spec, the_plan.task))
    if isinstance(model, str):
        return replace(shipment, model_spec=model)
    return replace(shipment, pickled_model=pickled(model, f"model {shown(_name(model))}"))


def pack_setup(setup: Setup) -> Shipment:
    """The shipment of a tune's `Setup` (tuning/jobs.py): its task as given (`task_spec`, or
    the built-in `task`) travels as an evaluation's does; its model stays in the setup."""
    shipment = Shipment(
        payload=pickled(replace(setup, task_spec=None), f"tune of {shown(setup.task)}"),
        task=setup.task,
        task_fields=("task_spec",),
        remembered=loaded(setup.task) is not None,
        paths=_driver_paths(),
    )
    spec = setup.task if setup.task_spec is None else setup.task_spec
    return replace(shipment, **_task_fields(spec, setup.task))


class _TaskFields(TypedDict, total=False):
    """How a shipment carries its task (the `Shipment` fields of the same names)."""

    spec: str
    text: str
    pickled_task: bytes


def _task_fields(task_spec: str | Task[Any, Any], task: str) -> _TaskFields:
    if not isinstance(task_spec, str):  # a task object
        return {"pickled_task": pickled(task_spec, f"task {shown(task)}")}
    text = task_spec.strip()
    if text.lower() in TASKS:
        return {}
    if text.lower().endswith(TASK_FILE_SUFFIXES):
        file_text = read_file(Path(text), MAX_TASK_FILE_BYTES, "task file")
        return {"spec": text, "text": file_text}
    if is_import_string(text) or text.lower() in plugins():
        return {"spec": text}
    found = loaded(text)  # a name this process loaded earlier (a file, a module, a plugin)
    if found is None:
        raise InputError(f"unknown task {shown(text)}")
    return {"pickled_task": pickled(found, f"task {shown(task)}")}


def _driver_paths() -> tuple[str, ...]:
    """The driver's import path as absolute folders, its working directory first (as
    `io.imports` searches it): what a module of the user's is imported from here."""
    cwd = os.getcwd()
    entries = [cwd, *(os.path.abspath(p) if p else cwd for p in sys.path)]
    return tuple(dict.fromkeys(entries))


def pickled(thing: object, what: str) -> bytes:
    """`thing` by cloudpickle (functions and classes of `__main__` by value), or one line
    saying why it cannot go to a worker."""
    try:
        return bytes(ray_cloudpickle().dumps(thing))
    except Exception as exc:
        raise InputError(
            f"--ray: the {what} cannot be sent to Ray workers (pickling it raised "
            f"{first_line(exc)}); give it as a task file, an import string or a model spec"
        ) from None


def ray_cloudpickle() -> Any:
    """Ray's own copy of cloudpickle (shipping is only ever used with `--ray`)."""
    from ray import cloudpickle

    return cloudpickle


def _name(model: object) -> str:
    return str(getattr(model, "name", type(model).__name__))


_UNPACKED: dict[str, tuple[Any, LanguageModel | None, BaseTask[Any, Any]]] = {}
"""What this worker process unpacked, by shipment key: loaded once, shared by its pairs (a real
model's concurrency and rate limits then hold across them)."""


def unpack_plan(shipment: Shipment) -> EvalPlan:
    """In a worker: the plan, its task loaded as the driver loaded it (and remembered under its
    name where the driver remembers it)."""
    the_plan: EvalPlan = _unpacked(shipment)[0]
    return the_plan


def unpack_model(shipment: Shipment) -> LanguageModel:
    """In a worker: the model of a pair (a fresh simulated model each time, as a local run
    builds one per pair; one real model per process)."""
    if shipment.model_spec is not None:
        return model_from_recipe(shipment.model_spec, shipment.model_options)
    model = _unpacked(shipment)[1]
    assert model is not None  # pack sets one of model_spec and pickled_model
    return model


def unpack_routes(shipment: Shipment, model: LanguageModel) -> dict[str, LanguageModel]:
    """In a worker: the models of a pair's routed kinds (kind -> model), each from its spec as
    the driver's pair builds it (a fresh simulated one; one real model per process; the openai
    flags filling in what a spec leaves out), the default's own spec the pair's model."""
    same: dict[str, LanguageModel] = {identity(model): model}
    routed = {}
    for kind, spec in shipment.models:
        options = tuple(filled_in(spec, dict(shipment.model_options)).items())
        made = model_from_recipe(spec, options)
        routed[kind] = same.setdefault(identity(made), made)
    return routed


def unpack_setup(shipment: Shipment) -> Setup:
    """In a worker: a tune's `Setup`, its task loaded as the driver loaded it (`pack_setup`)."""
    setup: Setup = _unpacked(shipment)[0]
    return setup


def _unpacked(shipment: Shipment) -> tuple[Any, LanguageModel | None, BaseTask[Any, Any]]:
    _add_paths(shipment.paths)
    found = _UNPACKED.get(shipment.key)
    if found is None:
        task = _load_task(shipment)
        payload = _unpickled(shipment.payload, f"work on {shown(shipment.task)}")
        loaded = replace(payload, **dict.fromkeys(shipment.task_fields, task))
        found = (loaded, _load_model(shipment), task)
        _UNPACKED[shipment.key] = found
    if shipment.remembered:  # the schemes find it by name (its part size, paper configuration)
        remember(found[2])
    return found


def _add_paths(paths: tuple[str, ...]) -> None:
    """The driver's path entries this process lacks, after its own (its own modules win)."""
    have = {os.path.abspath(p) if p else os.getcwd() for p in sys.path}
    for entry in paths:
        if entry not in have and os.path.isdir(entry):
            sys.path.append(entry)
            have.add(entry)


def _load_task(shipment: Shipment) -> BaseTask[Any, Any]:
    if shipment.pickled_task is not None:
        return get_task(_unpickled(shipment.pickled_task, f"task {shown(shipment.task)}"))
    if shipment.text is not None and shipment.spec is not None:
        return get_task(load_task_file(Path(shipment.spec), shipment.text))
    return get_task(shipment.spec or shipment.task)


def _load_model(shipment: Shipment) -> LanguageModel | None:
    if shipment.pickled_model is None:
        return None
    return as_model(_unpickled(shipment.pickled_model, "model"))


def _unpickled(blob: bytes, what: str) -> Any:
    try:
        return ray_cloudpickle().loads(blob)
    except Exception as exc:
        raise InputError(f"cannot unpickle the {what} ({first_line(exc)})") from None


def check_unpack(shipment: Shipment) -> str | None:
    """In a worker, before any pair runs: None when the task and model load there, else the
    one line saying why not (no model call is made)."""
    try:
        _unpacked(shipment)
        if shipment.model_spec is not None or shipment.pickled_model is not None:
            unpack_model(shipment)
    except ThoughtgraphError as exc:
        return str(exc)
    except Exception as exc:  # a user's module may raise anything
        return first_line(exc)
    return None
