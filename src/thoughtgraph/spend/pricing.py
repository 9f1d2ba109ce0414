"""What model calls cost: USD per million input (prompt) and output (completion) tokens.

Where the maintained `genai-prices` package is installed (`pip install 'thoughtgraph[prices]'`;
its data ship with it, so it works offline) it prices OpenAI models; otherwise, or for a model it
does not know, a small built-in table covers OpenAI's common chat models at their standard-tier
list prices as of `PRICES_AS_OF`. Prices change: check the provider's pricing page and pass your own
(`price_in` / `price_out`, or `--price-in` / `--price-out`) when they differ, and for any model
the table does not know. The simulated model, plain functions and unknown models cost 0 unless a
price is given, so a cost budget needs a price (it is refused without one).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from thoughtgraph.errors import InputError
from thoughtgraph.spend.usage import Usage

PRICES_AS_OF = "2026-03"


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `source` says where the numbers came from."""

    input: float
    output: float
    source: str = "given"

    def __post_init__(self) -> None:
        if self.input < 0 or self.output < 0:
            raise InputError(f"prices must be 0 or more, got {self.input:g} / {self.output:g}")

    def cost(self, usage: Usage) -> float:
        return (usage.prompt_tokens * self.input + usage.completion_tokens * self.output) / 1e6

    def to_dict(self) -> dict[str, float | str]:
        return {
            "input_per_million": self.input,
            "output_per_million": self.output,
            "source": self.source,
        }


# model id (and its dated snapshots, e.g. gpt-4o-mini-2024-07-18) -> (input, output)
PRICES: dict[str, tuple[float, float]] = {
    "gpt-5.4": (2.50, 15.00),
    "gpt-5.2": (1.75, 14.00),
    "gpt-5.1": (1.25, 10.00),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-3.5-turbo": (0.50, 1.50),  # the paper's model
}


def table_price(model_id: str) -> Price | None:
    """The built-in price of a model id or of a dated snapshot of it (`gpt-4o-2024-08-06`).
    Other variants (`gpt-4o-realtime`) are unknown: they may be priced differently."""
    model_id = model_id.strip().lower()
    known = [m for m in PRICES if model_id == m or _snapshot_of(model_id, m)]
    if not known:
        return None
    best = max(known, key=len)
    return Price(*PRICES[best], source=f"built-in table ({best}, list prices as of {PRICES_AS_OF})")


def _snapshot_of(model_id: str, base: str) -> bool:
    suffix = model_id.removeprefix(base + "-")
    return suffix != model_id and suffix[:1].isdigit()


PACKAGE = "genai-prices"
SAMPLE_TOKENS = 1000  # priced per call of this size, then scaled: the base tier of tiered prices


def package_price(model_id: str) -> Price | None:
    """The price `genai-prices` knows for an OpenAI model id; None when it is not installed or
    does not know the model (it reads its bundled data: no network)."""
    try:
        import genai_prices  # noqa: F401
    except ImportError:
        return None
    return _package_price(model_id.strip())


@functools.lru_cache(maxsize=256)
def _package_price(model_id: str) -> Price | None:
    """The package's answer, once per model id and process: its lookup scans every model of
    every provider (about a millisecond), and every eval pair asks for its model's price."""
    from genai_prices import Usage as PriceUsage
    from genai_prices import __version__, calc_price

    usage = PriceUsage(input_tokens=SAMPLE_TOKENS, output_tokens=SAMPLE_TOKENS)
    try:
        found = calc_price(usage, model_ref=model_id, provider_id="openai")
    except (LookupError, ValueError):
        return None
    scale = 1_000_000 / SAMPLE_TOKENS
    return Price(
        float(found.input_price) * scale,
        float(found.output_price) * scale,
        source=f"{PACKAGE} {__version__} ({found.model.id})",
    )


def model_id(model_name: str) -> str | None:
    """The provider's model id inside one of our model names (`openai:MODEL@host:port`)."""
    scheme, _, rest = model_name.partition(":")
    if scheme != "openai" or not rest:
        return None
    return rest.rsplit("@", 1)[0] if "@" in rest else rest


def price_for(
    model_name: str, price_in: float | None = None, price_out: float | None = None
) -> Price | None:
    """The price to charge: the one given, else for OpenAI models the one `genai-prices` knows,
    else the built-in table's, else None.

    Give both halves or neither: a half-known price would silently undercount.
    """
    if (price_in is None) != (price_out is None):
        raise InputError(
            "give both price_in and price_out (--price-in/--price-out, USD per "
            "million tokens), or neither"
        )
    if price_in is not None and price_out is not None:
        return Price(price_in, price_out)
    model = model_id(model_name)
    if not model:
        return None
    return package_price(model) or table_price(model)
