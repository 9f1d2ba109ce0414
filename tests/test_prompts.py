"""The spec's prompts, verbatim, rendered in one pass (user data is never expanded)."""

from __future__ import annotations

import pytest

from thoughtgraph.tasks.prompts import PromptTemplate, TemplateError, render

PART_WITH_ERRORS = """\
Solve this part of a larger task. Work only on the part below.

<task>T</task>
<part>[3, 1]</part>

A previous attempt at this part had these errors. Avoid them:
<errors>missing one 3</errors>

Return only the result for this part, in the format: F"""

MERGE = """\
Combine the two partial results below into one result for the task.
Keep everything that is correct in each; do not drop or duplicate items.

<task>T</task>
<a>[1]</a>
<b>[2]</b>

Return only the merged result, in the format: F"""

REFINE = """\
The result below is close, but a check found errors in it.

<task>T</task>
<result>[1, 3]</result>
<errors>missing one 2</errors>

Fix exactly these errors and change nothing else.
Return only the corrected result, in the format: F"""


def test_part_prompt_with_previous_errors_is_the_spec_text():
    got = render("part", task="T", part="[3, 1]", previous_errors="missing one 3", format="F")
    assert got == PART_WITH_ERRORS


def test_part_prompt_without_previous_errors_drops_the_whole_block():
    got = render("part", task="T", part="[3, 1]", previous_errors="", format="F")
    assert "previous attempt" not in got and "<errors>" not in got and "{{" not in got
    assert got.endswith(
        "<part>[3, 1]</part>\n\n\nReturn only the result for this part, in the format: F"
    )


def test_merge_and_refine_prompts_are_the_spec_text():
    assert render("merge", task="T", result_a="[1]", result_b="[2]", format="F") == MERGE
    assert render("refine", task="T", result="[1, 3]", errors="missing one 2", format="F") == REFINE


@pytest.mark.parametrize(
    "payload", ["{{task}}", "{{#if previous_errors}}x{{/if}}", "{{format}}", "}}{{"]
)
def test_user_data_is_sent_literally(payload):
    text = render("part", task="T", part=payload, previous_errors="", format="F")
    assert f"<part>{payload}</part>" in text
    text = render("refine", task=payload, result=payload, errors=payload, format="F")
    assert text.count(payload) == 3


def test_if_else_and_nesting():
    template = PromptTemplate("{{#if a}}A{{#if b}}B{{/if}}{{else}}N{{/if}}!")
    assert template.render({"a": 1, "b": 1}) == "AB!"
    assert template.render({"a": 1, "b": 0}) == "A!"
    assert template.render({"a": "", "b": 1}) == "N!"
    assert template.variables == {"a", "b"}


@pytest.mark.parametrize("source", ["{{#if a}}x", "x{{/if}}", "{{else}}"])
def test_malformed_templates_are_refused(source):
    with pytest.raises(TemplateError):
        PromptTemplate(source)


@pytest.mark.parametrize(
    "source",
    ["<part>{{part}</part>", "{{ part name }}", "{{#each items}}x", "{{> partial}}", "{{part-1}}"],
)
def test_a_tag_that_is_not_one_is_refused_not_sent_literally(source):
    """`{{part}` would send the braces and leave the data out of the prompt, silently."""
    with pytest.raises(TemplateError, match="not a template tag"):
        PromptTemplate(source)


def test_missing_variable_is_an_error():
    with pytest.raises(TemplateError, match="'part' was not given"):
        render("part", task="T", previous_errors="", format="F")
