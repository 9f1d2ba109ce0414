"""Prices from the maintained genai-prices package, with the built-in table as fallback."""

from __future__ import annotations

import sys

import pytest

from thoughtgraph.spend import pricing
from thoughtgraph.spend.pricing import PRICES, price_for


def test_genai_prices_prices_openai_models_offline(monkeypatch):
    pytest.importorskip("genai_prices")
    import socket

    def no_network(*_a, **_k):
        raise OSError("no network in this test")

    monkeypatch.setattr(socket, "create_connection", no_network)
    price = price_for("openai:gpt-4o-mini-2024-07-18")
    assert price is not None and price.source.startswith("genai-prices ")
    assert (price.input, price.output) == pytest.approx(PRICES["gpt-4o-mini"])


def test_the_built_in_table_is_the_fallback(monkeypatch):
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # not installed
    price = price_for("openai:gpt-4o-mini")
    assert price is not None and price.source.startswith("built-in table (gpt-4o-mini")
    assert (price.input, price.output) == PRICES["gpt-4o-mini"]


def test_a_model_the_package_does_not_know_falls_back_or_stays_unpriced():
    assert pricing.package_price("no-such-model-xyz") is None
    assert price_for("openai:no-such-model-xyz") is None


def test_given_prices_win_and_other_models_are_not_priced():
    assert price_for("openai:gpt-4o-mini", 1.0, 2.0).source == "given"
    assert price_for("sim") is None
