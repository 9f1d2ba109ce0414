"""How tune prints a cost per sample: never in exponent notation, never as 0."""

import pytest

from thoughtgraph.tuning.report import cost_text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.000012, "0.000012"),
        (0.0000123456, "0.00001235"),
        (0.00345, "0.00345"),
        (0.5, "0.5"),
        (12.34, "12.3"),
        (0.0, "0"),
        (None, "—"),
    ],
)
def test_a_cost_is_shown_in_positional_digits(value, shown):
    assert cost_text(value) == shown


def test_a_small_cost_keeps_its_digits_in_the_progress_form():
    assert cost_text(0.000012, fixed=True) == "0.000012"
    assert cost_text(3.0, fixed=True) == "3.0"
