"""thoughtgraph: Graph of Thoughts (Besta et al., AAAI 2024) for long, exact LLM tasks.

>>> import thoughtgraph
>>> result = thoughtgraph.solve("sorting", [3, 1, 2, 1], model="sim:error=0")
>>> result.output, result.status
([1, 1, 2, 3], 'clean')
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads either)
if TYPE_CHECKING:
    from typing import Any

    # what the names below are; at run time each loads on first use
    from thoughtgraph import schemes, testing
    from thoughtgraph.api.evaluation import aevaluate, evaluate
    from thoughtgraph.api.tuning import atune, tune
    from thoughtgraph.engine.graph import Graph, Op
    from thoughtgraph.engine.result import Result
    from thoughtgraph.engine.state import Call, RunState
    from thoughtgraph.engine.thought import Thought
    from thoughtgraph.errors import (
        BudgetExhausted,
        FatalModelError,
        GraphError,
        InputError,
        ModelError,
        RunInterrupted,
        ThoughtgraphError,
        UnknownNameError,
    )
    from thoughtgraph.evaluation.results import EvalResults, EvalSizes
    from thoughtgraph.evaluation.session import EvalInterrupted
    from thoughtgraph.events import Event, StopReason
    from thoughtgraph.models.base import Completion, FunctionModel, LanguageModel, WrapperModel
    from thoughtgraph.modelspec import as_model
    from thoughtgraph.schemes import got
    from thoughtgraph.sim.model import SimulatedModel
    from thoughtgraph.solving.solve import asolve, solve
    from thoughtgraph.spend.usage import Usage
    from thoughtgraph.tasks import BaseTask, ParseError, SortingTask, Task, get_task
    from thoughtgraph.tasks.prompts import PromptTemplate
    from thoughtgraph.tasks.score import Score
    from thoughtgraph.tuning.results import TuneResults

# name -> module that defines it: `import thoughtgraph` loads none of them (pydantic, the
# engine and the tasks load on first use), so the command line and scripts start fast
_LAZY = {
    "schemes": ".schemes",
    "testing": ".testing",
    **dict.fromkeys(["aevaluate", "evaluate"], ".api.evaluation"),
    **dict.fromkeys(["EvalResults", "EvalSizes"], ".evaluation.results"),
    "EvalInterrupted": ".evaluation.session",
    **dict.fromkeys(["atune", "tune"], ".api.tuning"),
    "TuneResults": ".tuning.results",
    **dict.fromkeys(["asolve", "solve"], ".solving.solve"),
    **dict.fromkeys(
        [
            "BudgetExhausted",
            "FatalModelError",
            "GraphError",
            "InputError",
            "ModelError",
            "RunInterrupted",
            "ThoughtgraphError",
            "UnknownNameError",
        ],
        ".errors",
    ),
    **dict.fromkeys(["Event", "StopReason"], ".events"),
    **dict.fromkeys(["Graph", "Op"], ".engine.graph"),
    **dict.fromkeys(
        ["Completion", "FunctionModel", "LanguageModel", "WrapperModel"], ".models.base"
    ),
    "as_model": ".modelspec",
    "SimulatedModel": ".sim.model",
    "PromptTemplate": ".tasks.prompts",
    "Result": ".engine.result",
    "got": ".schemes",
    **dict.fromkeys(["Call", "RunState"], ".engine.state"),
    "Thought": ".engine.thought",
    "Score": ".tasks.score",
    "Usage": ".spend.usage",
    **dict.fromkeys(["BaseTask", "ParseError", "SortingTask", "Task", "get_task"], ".tasks"),
}


_MODULES = ("schemes", "testing")


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use (PEP 562) and keep the name."""
    if name not in _LAZY:
        raise AttributeError(f"module 'thoughtgraph' has no attribute {name!r}")
    _displays()
    module = importlib.import_module(_LAZY[name], __name__)
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value
    return value


_displays_installed = False


def _displays() -> None:
    """In IPython, register the Jupyter displays of graphs and results once (the engine's objects
    carry no display methods: `viewer/jupyter.py`)."""
    global _displays_installed
    if _displays_installed or "IPython" not in sys.modules:
        return
    _displays_installed = True
    importlib.import_module(".viewer.jupyter", __name__).install()


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__version__ = "0.1.0"

__all__ = [
    "BaseTask",
    "BudgetExhausted",
    "Call",
    "Completion",
    "EvalInterrupted",
    "EvalResults",
    "EvalSizes",
    "Event",
    "FatalModelError",
    "FunctionModel",
    "Graph",
    "GraphError",
    "InputError",
    "LanguageModel",
    "ModelError",
    "Op",
    "ParseError",
    "PromptTemplate",
    "Result",
    "RunInterrupted",
    "RunState",
    "Score",
    "SimulatedModel",
    "SortingTask",
    "StopReason",
    "Task",
    "Thought",
    "ThoughtgraphError",
    "TuneResults",
    "UnknownNameError",
    "Usage",
    "WrapperModel",
    "aevaluate",
    "as_model",
    "asolve",
    "atune",
    "evaluate",
    "get_task",
    "got",
    "schemes",
    "solve",
    "testing",
    "tune",
]
