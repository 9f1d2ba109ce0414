"""`thoughtgraph tune`: search graph settings for the best error-vs-cost trade-off (Optuna).

The package itself is callable: `thoughtgraph.tune(task, data, ...)` is
`thoughtgraph.tune.api.tune` (see `thoughtgraph.evaluate` for why).
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from thoughtgraph.tune.api import tune

        return tune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
