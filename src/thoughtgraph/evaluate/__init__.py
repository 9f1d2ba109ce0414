"""The evaluation: datasets, the harness, reports and figures; `thoughtgraph.evaluate(...)`.

The package itself is callable: `thoughtgraph.evaluate(task, data, ...)` is
`thoughtgraph.evaluate.api.evaluate` (a package and a function cannot share the name any other
way: importing `thoughtgraph.evaluate.runner` makes the package the attribute).
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from thoughtgraph.evaluate.api import evaluate

        return evaluate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
