"""thoughtgraph: Graph of Thoughts (Besta et al., AAAI 2024) for long, exact LLM tasks.

>>> import thoughtgraph
>>> result = thoughtgraph.solve("sorting", [3, 1, 2, 1], model="sim:error=0")
>>> result.output, result.status
([1, 1, 2, 3], 'clean')
"""

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
