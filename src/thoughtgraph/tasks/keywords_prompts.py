"""Paper-style prompts for keyword counting (IO, CoT, ToT fix, the paper's GoT), in our own words.

Example texts are ours; their counts are computed in code (`count_countries`), so every example
answer is right by construction.
"""

from __future__ import annotations

import json

from thoughtgraph.tasks.countries import count_countries
from thoughtgraph.tasks.prompts import PromptTemplate

_TEXTS = [
    (
        "Lena flew from Chile to Japan for a conference on ocean currents. In Japan she met a "
        "researcher from Kenya who had just returned from Chile."
    ),
    (
        "The old trade road ran from Egypt through Jordan into Iraq. Merchants from India waited in "
        "Iraq for the caravans, and some travelled on to Egypt with spices bound for Italy."
    ),
    (
        "Marco grew up in Portugal and studied in Germany. His sister moved to Canada, then to "
        "Mexico, then back to Canada to teach."
    ),
]
_SENTENCES = [
    "Spices from Vietnam and silk from China reached Turkey before Turkey sold them on.",
    "Nobody in the village had ever left the valley.",
]


def _dict(text: str) -> str:
    return json.dumps(count_countries(text))


def _pairs(texts: list[str]) -> str:
    return "\n\n".join(f"Text: {t}\nOutput: {_dict(t)}" for t in texts)


def _cot_example() -> str:
    text = _TEXTS[1]
    first, second = text.split(". ", 1)
    first += "."
    return (
        f"Text: {text}\n"
        f"Passage 1: {first}\nCounts: {_dict(first)}\n"
        f"Passage 2: {second}\nCounts: {_dict(second)}\n"
        f"Output: {_dict(text)}"
    )


_RULES = (
    "Count only countries named explicitly, spelled as in the text; a country named twice counts "
    "2. Leave out countries that are not named."
)

IO = PromptTemplate(
    "Count how many times each country is named in the text in <input>. " + _RULES + " Reply "
    "only with a JSON object mapping every country named at least once to its count, with no "
    "other text.\n\nExamples:\n\n" + _pairs(_TEXTS) + "\n\n<input>{{input}}</input>"
)

COT = PromptTemplate(
    "Count how many times each country is named in the text in <input>. " + _RULES + " Work "
    "step by step: cut the text into four passages of similar length, count the countries of "
    "each passage, then add the counts of the passages together. Show your steps, then give the "
    'answer on a last line that starts with "Output: " followed by a JSON object of the counts.'
    "\n\nExample:\n\n" + _cot_example() + "\n\n<input>{{input}}</input>"
)

SENTENCE = PromptTemplate(
    "Count how many times each country is named in the sentence in <input>. " + _RULES + " Read "
    "it word by word and add one to a country each time you meet its name. Reply only with a "
    "JSON object of the counts ({} if no country is named).\n\nExamples:\n\n"
    + _pairs(_SENTENCES)
    + "\n\n<input>{{input}}</input>"
)

_WRONG = {"Egypt": 1, "Jordan": 1, "Iraq": 2, "India": 1, "Italy": 1, "Greece": 1}

IMPROVE = PromptTemplate(
    "The counts in <incorrect> were meant to say how many times each country is named in the text "
    "in <input>, but they have mistakes: a country may be missing, counted too often or too "
    "rarely, or not named in the text at all. " + _RULES + " Go through the text, count again "
    'and reply only with a line "Output: " followed by the corrected JSON object.\n\nExample:\n\n'
    f"Text: {_TEXTS[1]}\nIncorrect: {json.dumps(_WRONG)}\nOutput: {_dict(_TEXTS[1])}\n\n"
    "<input>{{original}}</input>\n<incorrect>{{current}}</incorrect>"
)

SPLIT = PromptTemplate(
    "Split the text in <input> into <parts>{{parts}}</parts> passages of about {{length}} "
    "sentences each, cutting only between sentences and changing no word: the first passage "
    "holds the first sentences, the next passage the next ones, and so on. The passages will be "
    "used to count the countries named in the text. Reply only with JSON such as "
    '{"Passage 1": "...", "Passage 2": "..."}, with no other text.\n\n<input>{{input}}</input>'
)

PAPER_MERGE = PromptTemplate(
    "The JSON objects in <a> and <b> count the countries named in two passages of one text. "
    "Combine them into one object: add up the counts of a country found in both, and keep a "
    "country found in only one with its count. Reply only with the combined JSON object.\n\n"
    "<a>{{result_a}}</a>\n<b>{{result_b}}</b>"
)

IMPROVE_MERGE = PromptTemplate(
    "The counts in <merged> were combined from the counts of the passages of the text in <input>, "
    "and they are wrong: a check found that they do not match the text. " + _RULES + " Count the "
    'countries of the text again and reply only with a line "Output: " followed by the corrected '
    "JSON object.\n\n<input>{{original}}</input>\n<merged>{{current}}</merged>"
)

PROMPTS = {
    "io": IO,
    "cot": COT,
    "sentence": SENTENCE,
    "improve": IMPROVE,
    "split": SPLIT,
    "paper_merge": PAPER_MERGE,
    "improve_merge": IMPROVE_MERGE,
}
