"""Which model answers each kind of call: a run's default model and the ones routed to kinds.

A graph's calls go to one model unless the run routes some kinds elsewhere (`--model-for
merge=SPEC`, `models={"merge": ...}`): parts to a small model, merges to a strong one. Each
model is a `Route`: the model as the run wraps it (its answer cap, rate limits and cache), its
price and its label, the name its calls, spend and trace entries carry. The gateway asks
`Routes.of(kind)` for every call; the one budget (the run's `Meter`) counts every model's
requests, tokens and cost together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from thoughtgraph.models.base import LanguageModel, display_name
from thoughtgraph.spend.pricing import Price


@dataclass(frozen=True)
class Route:
    """One model of a run: what answers, at what price, under which label."""

    label: str  # the model's name in spend_by_model, each call's `model` and the viewer
    model: LanguageModel
    price: Price | None = None


@dataclass(frozen=True)
class Routes:
    """The run's default model and the kinds routed to others (`by_kind`: kind -> route)."""

    default: Route
    by_kind: Mapping[str, Route] = field(default_factory=dict)

    @classmethod
    def single(cls, model: LanguageModel, price: Price | None = None) -> Routes:
        """One model for every call (a run that routes nothing)."""
        return cls(Route(display_name(model), model, price))

    def of(self, kind: str) -> Route:
        """The model a call of this kind goes to."""
        return self.by_kind.get(kind, self.default)

    @property
    def routes(self) -> list[Route]:
        """Each model once, the default first (a model routed to two kinds is one route)."""
        found: dict[str, Route] = {self.default.label: self.default}
        for route in self.by_kind.values():
            found.setdefault(route.label, route)
        return list(found.values())

    @property
    def labels(self) -> list[str]:
        return [route.label for route in self.routes]

    @property
    def prices(self) -> dict[str, Price | None]:
        """Each model's price by its label: what the totals price its calls at."""
        return {route.label: route.price for route in self.routes}

    @property
    def routed(self) -> dict[str, str]:
        """The kinds routed away from the default, and the label of the model each goes to."""
        return {kind: route.label for kind, route in self.by_kind.items()}
