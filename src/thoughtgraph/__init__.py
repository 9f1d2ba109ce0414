"""thoughtgraph: Graph of Thoughts (Besta et al., AAAI 2024) for long, exact LLM tasks.

>>> import thoughtgraph
>>> result = thoughtgraph.solve("sorting", [3, 1, 2, 1], model="sim:error=0")
>>> result.output, result.status
([1, 1, 2, 3], 'clean')
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads either)
if TYPE_CHECKING:
    from typing import Any

    # what the names below are; at run time each loads on first use
    from . import schemes, testing
    from .api import asolve, solve
    from .errors import (
        BudgetExhausted,
        FatalModelError,
        GraphError,
        InputError,
        ModelError,
        RunInterrupted,
        ThoughtgraphError,
        UnknownNameError,
    )
    from .events import Event
    from .graph import Graph, Op
    from .models.base import Completion, FunctionModel, LanguageModel, WrapperModel, as_model
    from .models.sim import SimulatedModel
    from .prompts import PromptTemplate
    from .result import Result
    from .schemes import got
    from .state import Call, RunState, Score, Thought, Usage
    from .tasks import BaseTask, ParseError, SortingTask, Task, get_task

# name -> module that defines it: `import thoughtgraph` loads none of them (pydantic, the
# engine and the tasks load on first use), so the command line and scripts start fast
_LAZY = {
    "schemes": ".schemes",
    "testing": ".testing",
    **dict.fromkeys(["asolve", "solve"], ".api"),
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
    "Event": ".events",
    **dict.fromkeys(["Graph", "Op"], ".graph"),
    **dict.fromkeys(
        ["Completion", "FunctionModel", "LanguageModel", "WrapperModel", "as_model"], ".models.base"
    ),
    "SimulatedModel": ".models.sim",
    "PromptTemplate": ".prompts",
    "Result": ".result",
    "got": ".schemes",
    **dict.fromkeys(["Call", "RunState", "Score", "Thought", "Usage"], ".state"),
    **dict.fromkeys(["BaseTask", "ParseError", "SortingTask", "Task", "get_task"], ".tasks"),
}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use (PEP 562) and keep the name."""
    if name not in _LAZY:
        raise AttributeError(f"module 'thoughtgraph' has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name], __name__)
    value = module if name in ("schemes", "testing") else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__version__ = "0.1.0"

__all__ = [
    "BaseTask",
    "BudgetExhausted",
    "Call",
    "Completion",
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
    "Task",
    "Thought",
    "ThoughtgraphError",
    "UnknownNameError",
    "Usage",
    "WrapperModel",
    "as_model",
    "asolve",
    "get_task",
    "got",
    "schemes",
    "solve",
    "testing",
]
