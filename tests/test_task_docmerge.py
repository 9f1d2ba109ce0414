"""Document merging: parsing merges and scorer answers, the paper's score rule, the clause proxy,
the model-scorer path on a scripted model, and solves."""

from __future__ import annotations

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.tasks import DocMergeTask, ParseError, get_task
from thoughtgraph.tasks.clauses import clauses, measures, merge_clauses
from thoughtgraph.tasks.docmerge import harmonic, parse_document, parse_two_scores
from thoughtgraph.testing import ScriptedModel

TASK = DocMergeTask()
DOC_A = (
    "NON-DISCLOSURE AGREEMENT\n1. The Receiving Party keeps the information secret.\n"
    "2. Governing Law: the laws of [State] apply."
)
DOC_B = (
    "CONFIDENTIALITY AGREEMENT\nPurpose:\na. The Receiving Party keeps the information "
    "secret.\nb. A fee of $200,000 is due for every breach."
)
MERGED = (
    "NON-DISCLOSURE AGREEMENT\nThe Receiving Party keeps the information secret.\n"
    "Governing Law: the laws of [State] apply.\nCONFIDENTIALITY AGREEMENT\n"
    "A fee of $200,000 is due for every breach."
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<Merged>\nONE NDA\n</Merged>", "ONE NDA"),
        ("Here is the result:\n<Merged>ONE NDA</Merged>\nI hope it helps.", "ONE NDA"),
        ("Draft: <Merged>old</Merged> Better: <Merged>new</Merged>", "new"),
        ("<merged>ONE NDA", "ONE NDA"),  # a missing closing tag
        ("```\nONE NDA\n```", "ONE NDA"),
        ("Output: ONE NDA", "ONE NDA"),
        ("ONE NDA\nwith two lines", "ONE NDA\nwith two lines"),
    ],
)
def test_merged_document_parser(text, expected):
    assert parse_document(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the format statement echoed: " and " between the tags is in the prompt
        (
            "I write it between the tags <Merged> and </Merged>.\n<Merged>NDA text</Merged>",
            "NDA text",
        ),
        ("<Merged>NDA text</Merged>\n<Merged>The parties agree.</Merged>", "NDA text"),  # a copy
        ("<Merged>First draft</Merged>\n<Merged>Second draft, cut off", "First draft"),
        ("<Merged>Only draft, cut off by the token", "Only draft, cut off by the token"),
    ],
)
def test_the_choice_among_candidates_follows_the_rule(text, expected):
    prompt = "<Doc1>\nThe parties agree.\n</Doc1>\nWrite " + TASK.format()
    assert TASK.parse_reply(text, ("The parties agree.",), prompt) == expected


@pytest.mark.parametrize("text", ["", "<Merged>  </Merged>", "   "])
def test_an_empty_merge_is_a_parse_error(text):
    with pytest.raises(ParseError):
        parse_document(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<Redundancy>7</Redundancy><Retained>9</Retained>", (7, 9)),
        ("Some reasoning.\n<Redundancy> 6.5 </Redundancy>\n<Retained>8</Retained>", (6.5, 8)),
        ("Redundancy: 7/10\nRetained information: 8/10", (7, 8)),
        ("Redundancy score (0-10): 4\nRetention score (0-10): 10", (4, 10)),
        ("<Redundancy>12</Redundancy><Retained>-1</Retained>", (10, 0)),  # clipped to 0-10
    ],
)
def test_scorer_answers(text, expected):
    assert parse_two_scores(text) == expected


def test_scorer_answer_without_both_numbers_is_a_parse_error():
    with pytest.raises(ParseError, match="retained"):
        parse_two_scores("<Redundancy>7</Redundancy>")


def test_a_scorer_answer_of_one_long_word_is_read_at_once():
    """`redundancyredundancy...` (a looping model) was read in quadratic time: 40,000
    characters took over a minute."""
    with pytest.raises(ParseError):
        parse_two_scores("redundancy" * 4_000)
    assert parse_two_scores("Redundancyyyyyyyy: 7\nRetention: 8") == (7, 8)


def test_the_papers_rule_averages_each_score_then_takes_the_harmonic_mean():
    texts = [
        "<Redundancy>6</Redundancy><Retained>9</Retained>",
        "Redundancy: 8\nRetained: 9",
        "I cannot rate this.",  # skipped
        "<Redundancy>7</Redundancy><Retained>9</Retained>",
    ]
    score = TASK.combine_scores(texts)
    assert score.value == pytest.approx(2 * 7 * 9 / (7 + 9))  # mean 7 and 9, harmonic 7.875
    assert "redundancy 7.0/10" in score.errors[0] and "over 3 samples" in score.errors[0]
    assert not score.perfect  # a model score is never "perfect" in the error-count sense
    assert TASK.combine_scores(["nothing"]).value == 0.0
    assert harmonic(0, 10) == 0.0 and harmonic(10, 10) == 10.0
    assert TASK.parse_score("<Redundancy>5</Redundancy><Retained>10</Retained>") == pytest.approx(
        2 * 5 * 10 / 15
    )


def test_clauses_drop_markers_and_headings():
    assert clauses(DOC_B) == (
        "CONFIDENTIALITY AGREEMENT",
        "The Receiving Party keeps the information secret.",
        "A fee of $200,000 is due for every breach.",
    )


def test_the_ideal_merge_keeps_every_clause_once():
    ideal = merge_clauses([DOC_A, DOC_B])
    assert ideal == list(clauses(MERGED))
    assert measures([DOC_A, DOC_B], "\n".join(ideal)) == (10.0, 10.0)
    assert TASK.score((DOC_A, DOC_B), MERGED).perfect
    assert TASK.reference((DOC_A, DOC_B)) == "\n".join(ideal)


def test_the_proxy_names_lost_and_repeated_clauses():
    lost = MERGED.replace("A fee of $200,000 is due for every breach.", "")
    score = TASK.score((DOC_A, DOC_B), lost + "\nThe Receiving Party keeps the information secret.")
    assert score.value == 2
    assert score.errors == (
        'add the missing clause "A fee of $200,000 is due for every breach."',
        (
            'remove the repeated clause "The Receiving Party keeps the information secret." '
            '(it repeats "The Receiving Party keeps the information secret.")'
        ),
    )
    redundancy, retention = measures((DOC_A, DOC_B), f"{DOC_A}\n\n{DOC_B}")
    assert redundancy < 10 and retention == 10  # a concatenation says something twice


def test_join_does_not_double_documents():
    assert TASK.join([(DOC_A, DOC_B), (DOC_A, DOC_B)]) == (DOC_A, DOC_B)
    assert TASK.join([(DOC_A,), (DOC_B,)]) == (DOC_A, DOC_B)


@pytest.mark.parametrize(
    "raw",
    [
        [DOC_A, DOC_B],
        {"documents": [DOC_A, DOC_B]},
        f"{DOC_A}\n---\n{DOC_B}",
        f"<Doc1>\n{DOC_A}\n</Doc1>\n<Doc2>\n{DOC_B}\n</Doc2>",
        (DOC_A, DOC_B),
    ],
)
def test_input_forms(raw):
    assert TASK.parse_input(raw) == (DOC_A, DOC_B)


def test_bad_input():
    with pytest.raises(InputError, match="list of documents"):
        TASK.parse_input([1, 2])
    with pytest.raises(InputError, match="non-empty"):
        TASK.parse_input(["", DOC_A])


def _scripted(scores: dict[str, tuple[int, int]]):
    """Merges answer `<Merged>variant N</Merged>`; the scorer rates variant N as told."""
    counter = {"merges": 0}

    def respond(prompt: str, _n: int) -> str:
        if "<Redundancy>" in prompt:
            merged = prompt.rsplit("<S>", 1)[1]
            for name, (red, ret) in scores.items():
                if name in merged:
                    return f"<Redundancy>{red}</Redundancy><Retained>{ret}</Retained>"
            return "<Redundancy>0</Redundancy><Retained>0</Retained>"
        counter["merges"] += 1
        return f"<Merged>\n{MERGED}\nvariant {counter['merges']}\n</Merged>"

    return respond


def test_model_scorer_path_on_a_scripted_model():
    """io with the paper's scorer: one request of 3 samples, combined by the paper's rule."""
    model = ScriptedModel(_scripted({"variant 1": (6, 9)}))
    graph = schemes.build("io", "doc-merge", 2)
    assert graph.op("score").params.samples == 3
    assert "ground_truth" not in {op.id for op in graph.ops}  # no reference to compare with
    result = thoughtgraph.solve("doc-merge", [DOC_A, DOC_B], model=model, graph=graph)
    assert result.calls == 2 and result.completions == 1 + 3
    assert result.final.score.value == pytest.approx(2 * 6 * 9 / 15)
    assert "<Doc2>" in model.prompts[1] and "variant 1" in model.prompts[1]


def test_keep_best_prefers_the_higher_model_score():
    """ToT with the model scorer: the best-rated answer is kept, higher is better."""
    model = ScriptedModel(
        _scripted({"variant 1": (5, 5), "variant 2": (9, 9), "variant 3": (7, 7)})
    )
    graph = schemes.build("tot", "doc-merge", 2, k=3, levels=1)
    result = thoughtgraph.solve("doc-merge", [DOC_A, DOC_B], model=model, graph=graph)
    assert result.final.text.strip().endswith("variant 2\n</Merged>")
    assert result.final.score.value == pytest.approx(9.0)
    assert result.calls == 1 + 3 and result.completions == 3 + 3 * 3


def test_got_paper_merges_the_three_best_answers():
    graph = schemes.build("got_paper", "doc-merge", 4)
    assert graph.op("part_1_best").params.model_dump() == {"n": 3, "higher_is_better": True}
    assert graph.op("merge_1_1").inputs == ("part_1_best",)
    assert graph.op("merge_1_1_best").inputs == ("merge_1_1_score", "part_1_best")
    assert graph.op("merge_1_1_fix").params.n == 10
    assert all(op.params.scorer == "model" for op in graph.ops if op.kind == "score")


@pytest.mark.parametrize("scheme", ["got", "got_paper", "io"])
def test_a_dataset_sample_is_solved_clean_without_slips(scheme):
    sample = load_sample("documents", 5)
    result = thoughtgraph.solve("doc-merge", sample.input, model="sim:error=0", scheme=scheme)
    assert result.clean and result.output == TASK.reference(sample.input)
    if scheme != "got":
        assert result.final.score.value == 10.0  # the simulated scorer, without noise


def test_registered_with_its_prompts():
    task = get_task("doc-merge")
    assert {"io", "cot", "improve", "paper_merge", "score"} <= set(task.prompts)


@pytest.mark.parametrize(
    "raw",
    [
        '["Short.", "Also short."]',
        '["a"]',
        '["The parties shall keep all information confidential.", "OK."]',
    ],
)
def test_documents_without_a_clause_are_refused_before_any_call(raw, capsys):
    from .conftest import run_cli

    with pytest.raises(InputError, match="holds no clause to merge"):
        TASK.parse_input(raw)
    code, out, err = run_cli(capsys, "solve", "doc-merge", "--input", raw, "--json")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: document ") and "holds no clause to merge" in err


def test_every_dataset_document_has_clauses():
    from thoughtgraph.evaluation.datasets import load_dataset

    for sample in load_dataset("documents"):
        assert TASK.parse_input(list(sample.input)) == sample.input
