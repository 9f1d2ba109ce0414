"""Choosing the answer in a real model's reply, as a careful person reading it would.

Real models (see tests/fixtures/real_answers/) do not reply with just the answer. They ramble,
label it (`Output:`, `Answer:`, `Sorted result:`), put it in a code block, write it without
brackets or as numbered lines, get cut off by the token limit, repeat things from the prompt
(its format example `[0, 1, 1, 4, 9]`, its few-shot examples, the input itself), write programs
instead of answers, make up examples of their own, and loop. Each task's parser finds every
candidate in the reply; `choose` then applies one rule for all tasks.

**Never an answer** (a reply holding only these holds no answer: a `ParseError`, which the run
scores as a failure, never a made-up answer that could become a part's best thought):

- *code*: a candidate inside a fenced program, on a line of code (`result = [1, 2] +
  list(range(3))`, `assert f([-1, 2, 3]) == [-1]`, `print(...)  # Output: [1, 2]`,
  `result = {}`), passed to a call (`sorted([3, 1, 2])`), returned, compared or followed by
  an operator, or offered as a way to compute ("... is to use the `map` function:", "Here's
  the code:"). A program is not an answer, and neither is a comment in it claiming what it
  prints. A fence (or an HTML `<code>`) holding just a value is no program; an HTML `<code>`
  block holding code is one, as a fence is.
- *for another input*: a candidate after an input the model restated that is not the real one
  (`Input: [9, 4]` then `Output: [4, 9]`, a few-shot example repeated with its output, a
  made-up `Set 1:`), until a blank line or the real input restated, or after an example
  marker (`for example`, `such as`, `Example usage:`, `here's the output for the example`),
  until the end of its sentence or a blank line ("nations such as Japan." in a restated
  passage marks no example), a list right after the words naming the format
  (`square brackets [0, 1]`, `every square bracket [0, 1, 4, 9]`, no colon between:
  `names_format`), a list the reply says would become something ("[0, 1, 4, 9] in ascending
  order would result in: ...": an input of its own, `operand`), and what an output *was*
  ("The output was [3, 8] instead of ...": an earlier attempt recounted, `recounted`). What a
  program prints, written right under it (`Output: [8, 17, 25]` under a fence), belongs to
  the program: it is for another input when the program is (`# Example usage:`). So is
  what prose after a program says it prints ("The output of this code would be:", "When you
  run this code, ...:"), right under it or so said, when the program works on data of its own
  (none of the problem's inputs in it: `printer`, the int-list tasks check); what prose says
  a program prints is the first value after those words, and a labelled value after that one
  is the reply's own. A value the reply gives as another problem's (its own made-up input, or
  what it calls an example) is that value wherever the reply repeats it.
- *a value stated for a problem of the reply's own* (`own_task`, with the prompt's input as
  evidence): the reply's own statement of the task's data whose data is none of the prompt's
  inputs ("Task: [0, 1, 4, 9]", "The input will be [0, 1, 1, 4, 9] and your output should be
  [3, 2, 7]."), or of what the task asks for with a value that does not draw on the input
  ("You must return ...: [0, 1, 4, 9]." of the format example's numbers, "Return [8, 4, 5]."
  under a list of its own), is a task the reply made up, and so is every value of its
  paragraph. A result stated as what is asked ("Return [9, 18].", "We need to count each
  country: {...}") is the answer.
- *the input restated under its label* (`Input: [3, 1, 2]`, `Set 1: [...]`): a restatement,
  not an answer; so is what a reply asking for its input restates without a label ("we are
  not given the second dictionary, please provide it": `choose_in`).
- *a fragment*: a list inside another list (`[[1, 2], [3, 4]]` gives neither `[1, 2]` nor
  `[3, 4]`), including the endless `[the result is [the result is ...` of a looping model,
  and a list of a run of three or more on one line (`[1, 8, 3], [4, 5, 9], [7, 6, 7], ...`).
- *an alternative*: two candidates offered on one line as either-or (`the output [1, 2, 3] or
  any repetition of [0, 4]`): a reply that offers two commits to neither.
- *in no answer position* (`aside`): an answer stands labelled, on a line of its own, opening
  the reply, after a short line label, in its last statement or after a result named in its
  sentence; a value standing in none of these is one in passing, and one inside parentheses,
  introduced by a line of the prompt given back, or inside a numbered step another step
  follows is in none wherever it stands.

**Among the rest:**

1. A candidate that repeats something in the prompt without an input label (an *echo*: the
   format example, an example's output, the input copied bare) is used only when there is
   nothing else: then it is what the model answered. (An input that is itself the answer, a list
   already sorted or a set that is its own intersection, is no echo.) An echo under an answer
   label is not passed over for a piece of it written before it (a step, a sublist, `[]`):
   the model built it from them (a merge whose answer equals an input, an answer equal to a
   few-shot example's sublist).
2. A complete candidate beats one cut off by the token limit (`[1, 2, 3, 4` at the very end).
3. A candidate right after an answer label (`Output:`, `Answer:`, `Result:`, ...) beats one
   that is not: the model said that this is its answer.
4. Among equals, the last one wins: models work first and state the answer at the end.

Every check reads a bounded window around its candidate or a per-reply index built in one pass,
so a reply is read in linear time whatever its size (tests guard this).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import Any

# A label announcing an answer, at the end of the text before a candidate (rule 3).
# Words that name a step (`sorted:`, `merged:`, `counts:` in a worked example) are no label.
LABEL = re.compile(
    r"(?i)(?:\b(?:final\s+)?(?:output|answer|result|solution|intersection|"
    r"sorted\s+(?:list|result|numbers|array|output|version)|"
    r"merged\s+(?:list|nda|document))\b[^\n:=]{0,12}[:=]|<(?:merged|output|answer|result)>)"
    r"[\s`*]*(?:\w+\n)?\s*$"
)
# A label restating the input just before a candidate (`Input:`, `Set 2:`): never an answer,
# even when the model misquotes the input. `<input>` as the model writes it counts too.
INPUT_LABEL = re.compile(
    r"(?i)(?:\b(?:input|unsorted(?:\s+list)?|original(?:\s+list)?|set[\s_-]*[12]|list\s*[12]|text)"
    r"\s*[:=]|<input>|\binput(?:\s+list)?(?:\s+(?:as|is))?)[\s`*]*$"
)
# A line giving the instruction back, its input after it: an imperative of the task and a colon
# ("Sort the list of numbers in ascending order:", "Find the intersection of the two sets:").
INSTRUCTION = re.compile(
    r"(?i)[\s>*`-]*(?:sort|find|count|merge)\s+(?:the|this|these|all)\b[^\n:]{0,80}:[\s`*]*$"
)
INSTRUCTION_WINDOW = 120
# Words after a list saying what it would become ("[0, 1, 4, 9] in ascending order would result
# in: ...", "[5, 2] sorted will give"): the list is an input the reply works on, not a result.
OPERAND = re.compile(
    r"[^\[\]\n.;:]{0,40}?\b(?:would|will)\s+(?:then\s+)?(?:result\s+in|give|yield|become|"
    r"turn\s+into)\b"
)
# Code before a candidate on its line: an assignment, a comparison, a call, `return`, `print`.
CODE = re.compile(r"(?:(?<![=!<>])=(?!=)|[(+]|==|\breturn|\bprint|\bassert)\s*$")
# A value's own type written around it (`List([10, 26])`, `set([3, 4])`), opening at a candidate.
CONSTRUCTOR = re.compile(r"(?i)\b(?:list|set|tuple|frozenset|array)\($")
# What comes before `=` on its line when it is a label (`Output =`, `Sorted list =`), not a name.
PROSE_LABEL = re.compile(r"[ \t>*`-]*[A-Z][A-Za-z ]{0,30}=\s*$")
# Code after a candidate on its line: an operator, a method call, a subscript (`**` is markdown).
CODE_AFTER = re.compile(r"[ \t]*(?:[+/%]|\*[ \t]*\d|==|!=|\.\w+\(|\[)")
# A line that is code whatever follows: a statement, or an assignment to a Python name
# (`result = `, `sorted_list = `: lower case or with `_`; `Output = ` is a label, not code).
CODE_LINE = re.compile(
    r"(?m)^[ \t]*(?:>>>|def |class |return\b|print\(|import |from \w[\w.]* import |assert |"
    r"for \w+ in |while |if .*:\s*$|[a-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*[-+*/]?=(?!=)|"
    r"[A-Za-z]\w*_\w*[ \t]*=(?!=))"
)
CODE_WINDOW = 200
# Words offering what follows as a way to compute the answer, not the answer ("A more efficient
# approach is to use the `map` function:", "Here's the code:", "using a list comprehension:"),
# HTML tags aside but an answer's (`<output>`: what follows is the result, not the way);
# words of a result between ("the output of the function:") make it a label.
OFFERED_AS_CODE = re.compile(
    r"(?i)\b(?:use|using|with|here(?:'s|\s+is))\b(?:(?!output|result|answer|return)[^\n:.]){0,40}"
    r"\b(?:function|method|code|snippet|comprehension|program|script)[`'\"]?[ \t]*:"
    r"(?:\s|[`*]|<(?!(?:output|answer|result)>)[a-z]+>)*$"
)
# A fenced block (one the token limit left open runs to the end) and signs that it is a program.
FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
# A program in HTML (`<pre><code>def f(...): ...</code>`; the token limit may leave it open).
CODE_TAG = re.compile(r"<(code|pre)\b[^>]*>(.*?)(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)
# JavaScript in HTML (`<script>const data = f({...});</script>`; the token limit may leave it open).
SCRIPT = re.compile(r"<script\b[^>]*>(.*?)(?:</script>|\Z)", re.DOTALL | re.IGNORECASE)
# A fenced block is a program when a line of it is code: a definition, a print, a return, an
# import, a loop, an assignment, a bare call (`list(set([9, 34]))`, `sorted(x)`), or a comment
# saying what code gives (`# Output: [0, 1, 4, 9]`, `# returns [27]`).
PROGRAM = re.compile(
    r"\bdef |\bprint\(|\breturn\b|\bimport |\bfor \w+ in |^\s*\w+\s*=|"
    r"^\s*[A-Za-z_][\w.]*\(.*\)\s*;?\s*$|^\s*(?:let|const|var) \w+\s*=|"
    r"^\s*(?:#|//)[^\n]{0,12}?\b(?i:output|returns?|prints?|result)\b",
    re.MULTILINE,
)
# The HTML tags closing a program (`</code></pre>`): no words between it and what it prints.
CLOSING_CODE = re.compile(r"</(?:code|pre)>", re.IGNORECASE)
# What a program prints, written under it: only blank lines and a label between.
AFTER_PROGRAM = re.compile(r"\s*(?:(?:output|result|returns?|prints?)\s*:?)?[\s`*]*", re.I)
# Prose after a program saying that what follows is its output ("The output of this code would
# be:", "The output returned by the function is:", "This will output", "This script will
# output:", "When you run this code", "It returns ... the result:", "The output:", "would result
# in:", "... and then prints out all the lists ...").
PRINTED = re.compile(
    r"(?i)\b(?:(?:output|result)s?\s+(?:(?:of|from)|(?:returned|printed|produced|given)\s+by)\s+"
    r"(?:(?:this|the|that|above|my|your)\s+)*(?:code|program|function|script|snippet)|(?:this|that|it|which|code|function|program)"
    r"(?:\s+(?:code|program|function|script|snippet))?"
    r"\s+(?:(?:will|would|should)\s+)?(?:output|print|return|produce|display)s?\b|"
    r"the\s+output\s+(?:is|(?:will|would|should)\s+be)|the\s+output\s*:|when\s+you\s+run|"
    r"to\s+print\b|(?:will|would|should)\s+result\s+in\b|"
    r"\b(?:and|then)\s+(?:then\s+)?(?:prints?|outputs?|displays?)\b)"
)
PRINTED_WINDOW = 200
# Where a value opens: what a program prints is the first value after the words saying so
# ("This will output: `[[2982, 7], [14]]`"); a labelled value after that one ("So the correct
# output would be: [0, 56, 4]") is the reply's own statement, not the program's output.
VALUE_OPENING = re.compile(r"[\[{]")
# The format named right before a list, no label between ("always square brackets [0, 1]
# (where ...)", "return it in the format [0, 1, 2]"): the list shows the format, as the prompt's
# own "such as [0, 1, 1, 4, 9]" does.
FORMAT_NAMED = re.compile(
    r"(?i)\b(?:square\s+brackets?|in\s+(?:the|this|that|a)\s+format(?:\s+of)?)[ \t`*]*$"
)
# The format named with a colon ("in the format: [0, 1, 1, 4, 9]", "list the integers in square
# brackets: `[3, 11, 14]`"): what follows shows the format when it is the prompt's own example.
FORMAT_COLON = re.compile(r"(?i)\b(?:format|square\s+brackets?)[ \t]*:[ \t`*]*$")
# A model's own example: what follows it, to the end of its sentence or a blank line, is for
# another input. The sentence bounds it: "countries such as Japan." in a restated passage
# marks no example for the `Output:` on the next line.
EXAMPLE = re.compile(r"(?i)\b(?:for example|examples?\b|for instance|e\.g\.|such as|sample input)")
PARAGRAPH = re.compile(r"\n[ \t]*\n")
SENTENCE_END = re.compile(r"[.!?](?=\s)")
# A reply that asks for the input it was given (a capable model finding a merge's second input
# empty or garbled): what it restates from the prompt is no answer. An offer of more help
# ("please let me know if ...", "could you clarify") is no request: a request asks for input.
REQUEST = re.compile(
    r"(?i)\b(?:please (?:go ahead and )?(?:provide|share|send|give|supply)|"
    r"(?:could|can|would) you (?:please )?(?:provide|share|send|give)|"
    r"once you provide|if you (?:meant to )?provide)"
)
# Words in a candidate's sentence, before it, stating it as a result: a result noun, then
# `is`/`be`/`as` or a colon ("The result will be", "The answer to this part is", "the output of
# the above code is:", "you get this output as"); "the original list of integers [4, 9]",
# "which would result in lists [2, 4]" or a noun before code or a quote ("list concatenation
# (`**`) like this:", 'a key named "Peru" with two values:') state none. A list named is no
# result named ("a list of integers that contain every number twice: [0, 1, 2, 3] in this
# case" states a list, any list); "the sorted list is", "the final list is" state the result.
STATED = re.compile(
    r"(?i)\b(?:results?|outputs?|answers?|intersection|solution|counts?|"
    r"(?:sorted|final|resulting|merged)\s+lists?)\b"
    r"[^\n.;!?`'\"]{0,60}?(?:\b(?:is|are|be|as)|:)[\s`*]*$"
)
# A short label opening the candidate's line (`A: [24, 36]`, `List: [5, 6]`, `<output>`).
# A short label opening a line: `A:`, `List:`, or a tag naming what follows as the output
# (`<output>`, `<json_output>`, `<response>`).
LINE_LABEL = re.compile(
    r"[ \t>*`-]*(?:<[\w-]*(?:output|answer|result|response)[\w-]*>|[A-Za-z][\w ]{0,20}:)[ \t`*]*$",
    re.IGNORECASE,
)
LEAD_WINDOW = 200
_END = 1 << 62  # past any position: bisecting (start, _END) finds the last span starting <= start


@dataclass(frozen=True)
class Candidate:
    """One possible answer in a reply, with what the choice rule needs to know about it."""

    value: Any
    start: int  # where it begins in the reply
    complete: bool = True
    labelled: bool = False
    code: bool = False
    echo: bool = False
    other_input: bool = False  # after a restated input that is not the real one, an example
    restated: bool = False  # the input, under its label
    fragment: bool = False  # inside another list
    alternative: bool = False  # offered as one of two (`[1, 2] or [0, 4]`)
    end: int | None = None  # where it ends (`aside` is judged only when it is known)
    aside: bool = False  # inside prose, stated as nothing (`aside`)

    @property
    def usable(self) -> bool:
        """Could a careful reader take this for the model's answer at all?"""
        return not (
            self.code
            or self.other_input
            or self.restated
            or self.fragment
            or self.alternative
            or self.aside
        )

    def rank(self) -> tuple[bool, bool, bool, int]:
        return (not self.echo, self.complete, self.labelled, self.start)


def choose(candidates: Iterable[Candidate]) -> Candidate | None:
    """The best usable candidate under the module's rule (None when there is none).

    The echo rule passes over an echo only for a rival that could be an answer of its own: an
    echo under an answer label is not passed over for a piece of it written before it (a step,
    a sublist, `[]`), which the model built it from (a merge whose answer equals one of its
    inputs, an answer equal to a few-shot example's sublist)."""
    usable = [c for c in candidates if c.usable]
    best = max(usable, key=Candidate.rank, default=None)
    if best is None or best.echo:
        return best
    built = [
        c
        for c in usable
        if c.echo
        and c.labelled
        and c.complete
        and c.start > best.start
        and piece(best.value, c.value)
    ]
    return max(built, key=Candidate.rank, default=best)


def piece(part: Any, whole: Any) -> bool:
    """Is `part` a smaller piece of `whole`: a list of some of its items, a dictionary of some
    of its keys with at most its counts?"""
    if isinstance(part, list | tuple) and isinstance(whole, list | tuple):
        return len(part) < len(whole) and not Counter(part) - Counter(whole)
    if isinstance(part, dict) and isinstance(whole, dict):
        return part != whole and all(
            key in whole and isinstance(n, int) and n <= whole[key] for key, n in part.items()
        )
    return False


_LINE_REST = re.compile(r"[ \t`*]*\.?[ \t]*(?:\([^()\n]{0,60}\))?[ \t]*(?:\n|\Z)")
_LINE_LEAD = re.compile(r"[ \t>*`-]*")
# The body of an object that names nothing: `{}`, or `{"None"}` (a model saying none).
EMPTY_BODY = re.compile(r"""\s*(?:["']?none["']?)?\s*""", re.IGNORECASE)


def alone_on_line(text: str, start: int, end: int) -> bool:
    """Does the candidate at `start:end` stand on a line of its own (markdown, a final period
    or a short note in parentheses aside: `{} (no countries mentioned)`)?"""
    line = text.rfind("\n", 0, start) + 1
    return _LINE_LEAD.fullmatch(text, line, start) is not None and (
        _LINE_REST.match(text, end) is not None
    )


def choose_in(text: str, candidates: list[Candidate], prompt: str = "") -> Candidate | None:
    """`choose` for a reply: when the choice would be something the reply may merely restate
    (`_restating`: an echo of the prompt or an empty value, unlabelled, or any value it does not
    state as its result after the request) and the reply asks for its input (a refusal: "we
    are not given the second dictionary, please provide it"), every such candidate is a
    restatement and no answer. The request is looked for only for an unlabelled choice, and
    only before it unless it is an echo or empty. A candidate that stands in no answer
    position (`aside`, given the prompt: a line of it given back introduces nothing of the
    reply's own) is no answer; that is judged for the rest only when the choice is such a
    candidate. Before that, a choice stated for a problem of the reply's own (`own_task`: a
    value in its own statement of the task that is none of the prompt's inputs) sets aside
    every value of such a paragraph, judged likewise only when the choice is one."""
    best = choose(candidates)
    if best is not None and prompt and own_task(text, best, prompt):  # only then for the rest
        posed = own_task_paragraphs(text, candidates, prompt)
        candidates = [
            replace(c, other_input=True) if within(posed, c.start) else c for c in candidates
        ]
        best = choose(candidates)
    if best is not None and best.end is not None:
        bounds = statement_bounds(text)
        if aside(text, best, bounds, prompt):  # judged for the rest only then: a plain reply
            candidates = [  # pays nothing
                replace(c, aside=True) if aside(text, c, bounds, prompt) else c for c in candidates
            ]
            best = choose(candidates)
    if best is None or best.labelled:
        return best
    request = REQUEST.search(text, 0, len(text) if best.echo or not best.value else best.start)
    if request is None or not _restating(text, best, request.start()):
        return best
    return choose(
        [
            replace(c, restated=True) if _restating(text, c, request.start()) else c
            for c in candidates
        ]
    )


# A statement of the task, opening the candidate's sentence: the reply saying what is to be
# done ("Task:", "The task is to ...", "The first part of the task is ...", "In this task, ...",
# "The input will be ...", "You must return ...", "Return [...]"), not a result ("The answer to
# this task is" names one).
TASK_STATED = re.compile(
    r"(?i)(?:(?:the|this|your|my)\s+(?:(?:first|second|next|last|main|whole)\s+)?"
    r"(?:part\s+of\s+(?:the|this)\s+)?task\s+(?:is|was|requires|asks)\b|in\s+this\s+task\b|"
    r"task\s*:|(?:the|your|my)\s+input(?:\s+list)?\s+(?:is|was|(?:will|would)\s+be)\b|"
    r"(?:you|we)\s+(?:must|need\s+to|should|have\s+to|are\s+(?:asked|required)\s+to)\s|"
    r"return\s*(?=[\[{]))"
)
# Markup before a sentence's first word: spaces, markdown, a step's number, tags (`<response>`).
_SENTENCE_LEAD = re.compile(r"(?:[\s>*`#-]|\d{1,2}[.)]\s|<[\w-]+>)*")
TASK_WINDOW = 400


# The task's data stated ("Task: [0, 1, 4, 9]", the value right after the colon; "The input
# will be [0, 1, 1, 4, 9]"), not what the task asks for ("Return [...]", "You must ...: [...]").
_DATA_STATED = re.compile(
    r"(?i)(?:task\s*:[\s*`]*(?=[\[{])|(?:the|your|my)\s+input(?:\s+list)?\s+"
    r"(?:is|was|(?:will|would)\s+be)\b)"
)


def own_task(text: str, candidate: Candidate, prompt: str) -> bool:
    """Is the candidate a value of a task the reply states itself, not a result for the
    prompt's input? It stands in the reply's own statement of the task (`TASK_STATED` opening
    its sentence), and that statement does not draw on the prompt's input (the lists in its
    <input>, <part>, ... tags: the input restated is the prompt's problem):

    - a statement of the task's data ("Task: [0, 1, 4, 9]", "The input will be [0, 1, 1, 4, 9]
      and your output should be [3, 2, 7].") is the reply's own when its data, the first value
      after it, is none of the prompt's inputs; "The input is Set 1: [...] and Set 2: [...], so
      the result is [9, 18]." states the prompt's input and then answers;
    - a statement of what the task asks for ("Return [8, 4, 5].", "You must return the result
      only when all numbers are equal: [0, 1, 4, 9].") may well state the result asked for
      ("Return [9, 18].", "We need to count each country: {...}"): its value is another task's
      only when it is made of the prompt's example (`from_example`) or stands under a list of
      the reply's own ("[9, 7, 2]" above "Return [8, 4, 5].").

    What such a task holds is that task's, as an example's output is its input's. Reads a
    bounded window before the candidate."""
    start = candidate.start
    line = max(text.rfind("\n", max(0, start - TASK_WINDOW), start) + 1, start - TASK_WINDOW)
    lead = text[line:start]
    sentence = line + max(lead.rfind(". "), lead.rfind("! "), lead.rfind("? ")) + 1
    opened = _task_stated(text, sentence, start)
    if opened is None:
        return False
    value = candidate.value
    data = _DATA_STATED.match(text, opened, start + 1)
    if data is not None and isinstance(value, list | tuple):
        earlier = _BRACKETED.search(text, data.end(), start)  # the data, stated before it
        stated = value if earlier is None else _listed(earlier.group(1))
        if stated is not None:
            return not prompt_input(stated, prompt)
    if prompt_input(value, prompt):
        return False
    return from_example(value, prompt) or _example_before(text, line, sentence, prompt)


LIST_LINE = 20 * TASK_WINDOW  # the longest line read as a bare list before a statement
_BARE_LIST = re.compile(r"[\s*`]*\[([^\[\]]*)\][\s*`.,]*")


def _example_before(text: str, line: int, sentence: int, prompt: str) -> bool:
    """Does a line of nothing but a list that is none of the prompt's inputs stand right before
    the statement opening its line ("[9, 7, 2]" above "Return [8, 4, 5].": an input of the
    reply's own, then what to return for it)?"""
    if sentence != line or line == 0:
        return False
    before = text.rfind("\n", max(0, line - 1 - LIST_LINE), line - 1) + 1  # bounded
    bare = _BARE_LIST.fullmatch(text, before, line - 1)
    stated = None if bare is None else _listed(bare.group(1))
    return bool(stated) and not prompt_input(stated, prompt)


def _listed(body: str) -> list[Any] | None:
    """The values of a bracketed list's text: integers, or JSON strings (None: neither)."""
    if re.fullmatch(r"[\s,\d-]*", body):
        return [int(n) for n in _INT.findall(body) if len(n) < 40]
    try:
        values = json.loads(f"[{body}]")
    except ValueError:
        return None
    return values if all(isinstance(v, str) for v in values) else None


def from_example(value: Any, prompt: str) -> bool:
    """Is `value` (a list's items, a mapping's keys) made of the prompt's example: integers
    that one of its lists outside the input tags holds (each as many times: `[0, 1, 4, 9]` of
    `such as [0, 1, 1, 4, 9]`), or words that stand in the prompt outside its input? A result
    need not draw on the input (a task file's answer may be words of its own), so only a value
    taken from the example tells that the reply's task is the example's. An empty value is
    made of nothing: no."""
    items = list(value) if isinstance(value, list | tuple | dict) else [value]
    if not items or len(items) > 10_000:
        return False
    if all(isinstance(item, int) for item in items):
        wanted = Counter(items)
        return any(
            all(have[n] >= k for n, k in wanted.items()) for have in _prompt_examples(prompt)
        )
    whole, own = _lowered(prompt)
    words = [item.strip().lower() for item in items if isinstance(item, str)]
    return len(words) == len(items) and all(
        word and whole.count(word) > own.count(word) for word in words
    )


@lru_cache(maxsize=64)
def _prompt_examples(prompt: str) -> tuple[Counter[int], ...]:
    """The integers of each of the prompt's lists outside its input (its examples)."""
    inputs = prompt_inputs(prompt)
    found = []
    for body in _BRACKETED.findall(prompt):
        numbers = tuple(int(n) for n in _INT.findall(body) if len(n) < 40)
        if numbers and numbers not in inputs:
            found.append(Counter(numbers))
    return tuple(found)


def own_task_paragraphs(
    text: str, candidates: Iterable[Candidate], prompt: str
) -> tuple[tuple[int, int], ...]:
    """The paragraphs of the reply that state a task of its own (`own_task`): a task and its
    data are stated together, so every value of such a paragraph, before the statement too
    (`[9, 7, 2]` above "Return [8, 4, 5]."), is that task's."""
    breaks = [0, *(m.end() for m in PARAGRAPH.finditer(text)), len(text)]
    spans = set()
    for candidate in candidates:
        if own_task(text, candidate, prompt):
            index = bisect_right(breaks, candidate.start) - 1
            spans.add((breaks[index], breaks[min(index + 1, len(breaks) - 1)]))
    return tuple(sorted(spans))


_INT = re.compile(r"-?\d+")
_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


@lru_cache(maxsize=64)
def prompt_inputs(prompt: str) -> frozenset[tuple[int, ...]]:
    """The prompt's own input lists (in its <input>, <part>, ... tags), in order and sorted."""
    found: set[tuple[int, ...]] = set()
    for body in _BRACKETED.findall(tagged(prompt)):
        numbers = tuple(int(n) for n in _INT.findall(body) if len(n) < 40)  # no huge ints
        found.update((numbers, tuple(sorted(numbers))))
    return frozenset(found)


def instruction_words(name: str, prompt: str) -> bool:
    """Is `name` (a key the reply counts) words of the prompt's instruction, not of its input:
    in the prompt outside its tagged input, and not in that input ("A JSON object mapping each
    country to its count: 14", the format line given back as a count)? Such a key names
    nothing the input holds. A name of the input's own, or one the prompt does not hold (a
    wrong answer, still an answer), is not."""
    words = name.strip().lower()
    if len(words.split()) < 3:  # a name (`Peru`, `South Korea`), not a phrase of the prompt
        return False
    whole, own = _lowered(prompt)
    return words in whole and words not in own


@lru_cache(maxsize=64)
def _lowered(prompt: str) -> tuple[str, str]:
    """The prompt and its tagged input, lower-cased, once per prompt."""
    return prompt.lower(), tagged(prompt).lower()


def prompt_input(value: Any, prompt: str) -> bool:
    """Is `value` the prompt's input restated: one of its input lists, or (a list of strings)
    items its tagged input all holds?"""
    if not isinstance(value, list | tuple) or not value:
        return False
    if all(isinstance(v, str) for v in value):
        own = tagged(prompt)
        return all(v in own for v in value)
    inputs = prompt_inputs(prompt)
    return tuple(value) in inputs or tuple(sorted(value)) in inputs


def statement_bounds(text: str) -> tuple[int, int]:
    """Where the reply's first words begin (markdown aside) and where its last statement
    begins: after the last line break or sentence end before its final words (a closing
    period, backticks or markdown aside)."""
    first = len(text) - len(text.lstrip(" \t\n`*"))
    body = text.rstrip().rstrip(".!?`*) \t")
    ends = (body.rfind(". "), body.rfind("! "), body.rfind("? "), body.rfind("\n"))
    return first, 1 + max(ends)


def aside(text: str, candidate: Candidate, bounds: tuple[int, int], prompt: str = "") -> bool:
    """Is the candidate in no answer position, a value no careful reader would take for the
    reply's answer? An answer stands where a reply states one: labelled, on a line of its own,
    opening the reply, after a short label opening its line (`A: [...]`), in the reply's last
    statement, or after a result named in its sentence ("The result will be [...]"). Wherever
    it stands, a value is in none when it is

    - inside parentheses (`parenthetical`): an aside to the words before it, a result named in
      it too ("(the actual result would be [0, 1, 1]) so ..."), unless they close the reply
      naming a result or open it; a parenthesis the token limit cut off is one too;
    - introduced by a line of the prompt given back (`given_back`: "A previous attempt at this
      part had these errors:" then a fence): the prompt's own words introduce the prompt's
      content, not the reply's;
    - inside an element the prompt uses for its own content (`in_prompt_element`: a reply's
      `<errors>...` when the prompt has `<errors>`): the prompt's content given back, or made
      up in its place, not the reply's result;
    - inside a numbered step that another step follows (`in_step`), not on a line of its own:
      a step of a method ("2. ... In this case, the output will be [0, 2, 3]" before "3. ..."),
      not its result; the last step closes the reply and may state it;
    - the prompt's own value (an echo) in the reply's last statement with the sentence running
      on past it ("2. Remove the first occurrence of [0, 1, 4, 9] from each merged output
      list"): a word of that sentence; the reply states it only where it states a result.

    The model's steps, asides and illustrations ("(i.e., [4, 9])", "like this: `[42, 51]`",
    "from the original list of integers [4, 9]") are such values. Reads bounded windows around
    the candidate and per-reply indexes built in one pass."""
    start, end = candidate.start, candidate.end
    first, last = bounds
    if end is None:
        return False
    if prompt and (given_back(text, start, prompt) or in_prompt_element(text, start, prompt)):
        return True
    if candidate.labelled:
        return False
    if parenthetical(text, start, end, first):
        return True
    if start <= first or alone_on_line(text, start, end):
        return False
    line = text.rfind("\n", max(0, start - LEAD_WINDOW), start) + 1
    if LINE_LABEL.fullmatch(text, line, start):
        return False
    if in_step(text, start):
        return True
    if start >= last and not (candidate.echo and _RUNS_ON.match(text, end)):
        return False
    lead, sentence = _sentence_lead(text, start)
    if STATED.search(lead, sentence) is not None:
        return False
    return not _asked_for(text, start - len(lead) + sentence, start)


# A sentence running on past a value with words of its own ("Remove [0, 1, 4, 9] from each
# list"): the value is a word of the sentence, not what it ends on.
_RUNS_ON = re.compile(r"[ \t`*]*[ \t]+[a-z]")


def _sentence_lead(text: str, start: int) -> tuple[str, int]:
    """The text before `start` on its line (at most LEAD_WINDOW characters), and where in it
    the candidate's sentence begins."""
    line = text.rfind("\n", max(0, start - LEAD_WINDOW), start) + 1
    lead = text[max(line, start - LEAD_WINDOW) : start]
    return lead, max(lead.rfind(". "), lead.rfind("! "), lead.rfind("? ")) + 1


def _asked_for(text: str, sentence: int, start: int) -> bool:
    """Does the candidate's sentence open by saying what the task asks for ("We need to
    return the common elements: [9, 18]", "You must list them: [...]")? Such a sentence states
    the result asked for as surely as "The result is" does (`own_task` has already set aside
    one whose value is another task's); a statement of the task's data ("Task: [...]", "The
    input is [...]") states no result."""
    opened = _task_stated(text, sentence, start)
    return opened is not None and _DATA_STATED.match(text, opened, start + 1) is None


def _task_stated(text: str, sentence: int, start: int) -> int | None:
    """Where the words of the sentence at `sentence` begin when it opens with a statement of
    the task (`TASK_STATED`) before `start`; None when it does not."""
    opening = _SENTENCE_LEAD.match(text, sentence, start)
    if opening is None or TASK_STATED.match(text, opening.end(), start + 1) is None:
        return None
    return opening.end()


# A numbered step opening a line (`1. `, `2) `): the model's method, step by step.
STEP = re.compile(r"(?m)^[ \t>*]*\d{1,2}[.)][ \t]+(?=\S)")


@lru_cache(maxsize=8)
def _steps(text: str) -> tuple[int, ...]:
    """Where the reply's numbered steps open, found once per reply."""
    return tuple(m.start() for m in STEP.finditer(text))


def in_step(text: str, start: int) -> bool:
    """Is `start` inside a numbered step (opened on its line or a line above, no blank line
    between) that another numbered step follows? Then it is a step of the method."""
    steps = _steps(text)
    index = bisect_right(steps, start) - 1
    if index < 0 or index + 1 >= len(steps) or start - steps[index] > STEP_WINDOW:
        return False
    return PARAGRAPH.search(text, steps[index], start) is None


STEP_WINDOW = 600
# A line given back from the prompt: at least this many characters of it, the words that
# introduce the candidate (the rest of its line before it, or the line above it).
GIVEN_BACK = 24
# Markup between a line and the value it introduces: spaces, line breaks, a fence opening.
_LEAD_MARKUP = re.compile(r"(?:\s|```\w*|[`*>#:-])*\Z")


def given_back(text: str, start: int, prompt: str) -> bool:
    """Is the candidate at `start` introduced by a line of the prompt given back ("A previous
    attempt at this part had these errors:", then a fence and the value)? The prompt's words
    introduce the prompt's content (its errors, its format, its part), so the value is a
    restatement, the prompt's "Return only the result for this part, in the format: [0, 1,
    1, 4, 9]" too. Reads a bounded window before the candidate."""
    lead = text[max(0, start - LEAD_WINDOW) : start]
    markup = _LEAD_MARKUP.search(lead)
    words = lead[: markup.start() if markup else len(lead)]
    words = words[words.rfind("\n") + 1 :].strip(" \t`*>#-")
    return len(words) >= GIVEN_BACK and words in prompt


# The prompt's elements that hold what it says of earlier attempts (`<errors>...</errors>`): a
# reply writing one gives the prompt back, or makes up more of it. One the reply leaves open
# runs to the end of its paragraph.
PROMPT_ELEMENT = re.compile(r"<errors>.*?(?:</errors>|\n[ \t]*\n|\Z)", re.DOTALL | re.IGNORECASE)


@lru_cache(maxsize=8)
def _prompt_elements(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the reply's `<errors>` elements, found once per reply."""
    if "<errors>" not in text and "<ERRORS>" not in text:
        return ()
    return tuple(m.span() for m in PROMPT_ELEMENT.finditer(text))


@lru_cache(maxsize=8)
def _has_prompt_element(prompt: str) -> bool:
    return "<errors>" in prompt


def in_prompt_element(text: str, start: int, prompt: str) -> bool:
    """Is the candidate at `start` inside an element the prompt uses for its own content (a
    `<errors>` the reply opened and did not close before it, or its paragraph's end), when the
    prompt has that element? What it holds is the prompt's words given back or made up in
    their place ("<errors>... in the original code it returns [32] ..."), never the reply's
    result. The elements are found once per reply."""
    spans = _prompt_elements(text)
    return bool(spans) and _has_prompt_element(prompt) and within(spans, start)


def quoted(text: str, start: int, prompt: str) -> bool:
    """Are the words right before the candidate at `start` the prompt's, given back (at least
    GIVEN_BACK characters of its text: "... a list of integers in square brackets, such as ")?
    Then what they introduce is the prompt's own value quoted, its example too."""
    lead = text[max(0, start - GIVEN_BACK - 12) : start].lstrip()
    return bool(prompt) and len(lead) >= GIVEN_BACK and lead in prompt


# A parenthesis opened before a candidate on its line and not closed before it ("square
# brackets (`[0, 1, 4, 9]`)", "(i.e., [0, 1, 2, 4] would return [6, 9])"), what is inside it
# before the candidate; and what closes it after the candidate (or the reply's end: cut off).
PAREN_OPEN = re.compile(r"\((?P<inside>[^()\n]{0,120}?)$")
PAREN_CLOSE = re.compile(r"[^()\n]{0,160}?(?:\)|\Z)")
_CLOSING_REST = re.compile(r"[\s.!?`*)]*\Z")


def parenthetical(text: str, start: int, end: int, first: int = 0) -> bool:
    """Is the candidate at `start:end` inside parentheses ("square brackets (`[0, 1, 4]`)",
    "(i.e., [4, 9])", "(the actual result would be [0, 1, 1]) so ...", or "(except for [0, 1,"
    cut off)? A parenthesis is an aside by its form: it illustrates the words before it,
    wherever it stands, the reply's last statement included. It states an answer only when it
    opens the reply (`first`: where its first words begin), or closes it (nothing but
    punctuation after it) naming a result ("... kept
    (the result is [...])."). Reads a bounded window on the candidate's line."""
    opened = PAREN_OPEN.search(text, max(0, start - 128), start)
    if opened is None or opened.start() <= first:
        return False
    if not opened.group("inside").strip() and _constructed_result(text, 0, opened.start()):
        return False  # `List([10, 26])` stated as the result: the value's type, no aside
    closed = PAREN_CLOSE.match(text, end)
    if closed is None:
        return False
    if _CLOSING_REST.fullmatch(text, closed.end()) is not None:
        inside = opened.group("inside")
        if STATED.search(inside + " ") is not None or LABEL.search(inside):
            return False  # closing the reply, naming a result: its statement
    return True


# A condition opening the clause before a phrase ("Check if both sets have no common elements",
# "whether the text names no country"): what it says is asked, not stated.
CONDITION = re.compile(r"(?i)\b(?:if|whether|unless)\b[^\n.;:!?]{0,60}$")


def conditional(text: str, start: int) -> bool:
    """Is the phrase at `start` inside a condition (`if ...`, `whether ...`)? Then the reply
    asks it, as a step of a method, and says nothing of the answer."""
    return CONDITION.search(text, max(0, start - 60), start) is not None


def _restating(text: str, candidate: Candidate, request: int) -> bool:
    """Could the candidate be what a reply asking for its input (from `request` on) restates
    or makes do with? Unlabelled, an echo of the prompt or an empty value anywhere; after the
    request, any value it does not state as its result: having asked for its input, the reply
    has solved nothing ("Please go ahead and provide the list ... Please use these [32] as many
    times as is possible"). A value before a request for more ("[1, 2, 3]\n\nIf you have more
    lists, please provide them") is its answer."""
    if candidate.labelled:
        return False
    if candidate.echo or not candidate.value:
        return True
    return candidate.start > request and not stated(text, candidate.start)


def stated(text: str, start: int) -> bool:
    """Do words naming a result lead to the value at `start` in its sentence ("The intersection
    is [3, 4]", "the sorted list is: [1, 2]")?"""
    lead, sentence = _sentence_lead(text, start)
    return STATED.search(lead, sentence) is not None


def labelled(text: str, start: int) -> bool:
    """Does an answer label end just before `start` (only spaces, `*` or a fence between)?"""
    return LABEL.search(text[max(0, start - 80) : start]) is not None


def names_format(text: str, start: int, echo: bool = False) -> bool:
    """Does the list at `start` follow the words naming the format (`square brackets [0, 1]`,
    no label or colon between), or, when it repeats the prompt (`echo`), the format named with
    a colon ("in the format: [0, 1, 1, 4, 9]": the prompt's line given back)? Then it shows the
    format, an example, not the answer."""
    window = max(0, start - 40)
    if FORMAT_NAMED.search(text, window, start) is not None:
        return True
    return echo and FORMAT_COLON.search(text, window, start) is not None


def restates_input(text: str, start: int) -> bool:
    """Does an input label (`Input:`, `Set 1:`) end just before `start`, or does its line
    restate the instruction, the input after it ("Sort the list of numbers in ascending
    order: [5, 1, 2]": the task given back, not its result)?"""
    if INPUT_LABEL.search(text[max(0, start - 40) : start]) is not None:
        return True
    line_start = text.rfind("\n", max(0, start - INSTRUCTION_WINDOW), start) + 1
    return INSTRUCTION.match(text, line_start, start) is not None


# What an output was, in the past tense ("The output was [3, 8] instead of ...", "the previous
# result was"): an earlier attempt's answer recounted (a retry prompt tells the model what its
# previous attempt got wrong), not this reply's.
RECOUNTED = re.compile(r"(?i)\b(?:output|result|answer)s?\s+(?:was|were)[ \t]*:?[ \t`*]*$")


def recounted(text: str, start: int) -> bool:
    """Does the reply say the list at `start` is what an output was (past tense)?"""
    return RECOUNTED.search(text, max(0, start - 40), start) is not None


def operand(text: str, end: int) -> bool:
    """Is the list ending at `end` said to become something ("... would result in:", "... will
    give")? Then the reply states it as an input: the real one, or one of its own, and what it
    gives is for that input."""
    return OPERAND.match(text, end) is not None


def in_code(text: str, start: int, end: int | None = None) -> bool:
    """Is the candidate at `start` (ending at `end`) code: on a line of code, assigned, compared,
    passed, returned or printed, followed by an operator, anywhere in a fenced block that is a
    program (a fence holding just a list is a value), or written under a program as its output?"""
    # only the line's last CODE_WINDOW characters: a reply of thousands of lists on one line
    # made this quadratic
    line_start = text.rfind("\n", max(0, start - CODE_WINDOW), start) + 1
    window = max(line_start, start - CODE_WINDOW)
    code = CODE.search(text, window, start)
    if (
        code
        and not (code.group().startswith("=") and PROSE_LABEL.match(text, window, start))
        and not _constructed_result(text, window, code.start())
    ):
        return True
    if line_start >= start - CODE_WINDOW and CODE_LINE.match(text, line_start, start):
        return True
    if end is not None and CODE_AFTER.match(text, end, end + 40):
        return True
    if OFFERED_AS_CODE.search(text, max(0, start - 120), start):
        return True
    return within(_programs(text), start)


def _constructed_result(text: str, window: int, opening: int) -> bool:
    """Is the `(` at `opening` a value's type written around it, the whole stated as the result
    ("so the output is `List([10, 26])`", "Output: set([3, 4])")? Then the value is stated, not
    passed to code; `sorted([3, 1, 2])` or a bare `set([3, 4])` passes it."""
    constructor = CONSTRUCTOR.search(text, max(window, opening - 10), opening + 1)
    if constructor is None:
        return False
    return labelled(text, constructor.start()) or stated(text, constructor.start())


def anchor(text: str, start: int) -> int:
    """Where a candidate belongs: a candidate written right under a program (only blank lines
    and a label such as `Output:` between) is what the program prints, so it belongs to the
    program's end, and is for another input when the program is (`# Example usage:`)."""
    spans = _programs(text)
    index = bisect_right(spans, (start, _END)) - 1
    if index >= 0:
        stop = spans[index][1]
        if stop <= start < stop + 80:  # sliced only when short: many candidates after one
            gap = text[stop:start]  # program made this quadratic otherwise
            if AFTER_PROGRAM.fullmatch(CLOSING_CODE.sub("", gap.replace("```", "", 1), 2)):
                return max(0, stop - 1)
    return start


# The reply claiming the value as its result right after it ("`[0, 1, 2]`, which is the result
# we are expected to get"): its own statement, wherever it stands; "which is the result of
# multiplying ..." says what a computation gives, and claims nothing.
CLAIMED_AFTER = re.compile(
    r"(?i)[`*]*[ \t]*,?[ \t]*which\s+is\s+(?:the|our|my)\s+(?:(?:correct|final|expected|right)\s+)?"
    r"(?:result|answer|solution)\b(?![ \t]+of\b)"
)


def printer(text: str, start: int, end: int | None = None) -> tuple[int, int] | None:
    """The span of the program whose output the candidate at `start` is said to be: written
    right under it (`anchor`), or after prose since its end that names the code's output
    ("The output of this code would be:", "When you run this code, ... :"). What a program
    prints answers the problem only when the program works on the problem's input (the task
    checks: `print(sorted([3, 1, 2]))` then `[1, 2, 3]`); a program on made-up data prints for
    another input. None when the candidate follows no program or is not said to be its output,
    and when the reply claims the value (ending at `end`) as its result right after it
    ("`[0, 1, 2]`, which is the result we are expected to get")."""
    if end is not None and CLAIMED_AFTER.match(text, end):
        return None
    spans = _programs(text)
    index = bisect_right(spans, (start, _END)) - 1
    if index < 0 or start < spans[index][1]:
        return None
    stop = spans[index][1]
    if anchor(text, start) != start:
        return spans[index]
    claims = list(PRINTED.finditer(text, _lead_in(text, stop, start), start))  # bounded window
    if not claims:
        return None
    claim = claims[-1]
    if labelled(text, start) and VALUE_OPENING.search(text, claim.end(), start):
        return None  # the claim was for the value after it; the label states the reply's own
    return spans[index]


# Nothing but markup: spaces, emphasis, a fence opening with its language (```python).
_BARE_LEAD = re.compile(r"(?:[\s`*]|```[\w+-]*)*")


def _lead_in(text: str, stop: int, start: int) -> int:
    """Where the prose introducing the candidate at `start` begins (not before `stop`, nor more
    than PRINTED_WINDOW back): its paragraph, or the paragraph before when the candidate opens
    its own (`... to print the result:` then a blank line and the list)."""
    window = max(stop, start - PRINTED_WINDOW)
    breaks = [m.end() for m in PARAGRAPH.finditer(text, window, start)]
    if not breaks:
        return window
    if len(breaks) > 1 and _BARE_LEAD.fullmatch(text, breaks[-1], start):
        return breaks[-2]
    return window if _BARE_LEAD.fullmatch(text, breaks[-1], start) else breaks[-1]


@lru_cache(maxsize=8)
def _programs(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the reply's programs: fenced blocks that are programs, and `<script>`
    blocks (JavaScript in HTML, whatever it holds), found once per reply (not once per
    candidate: thousands of candidates in a fence made that quadratic)."""
    spans: list[tuple[int, int]] = []
    if "```" in text:
        spans.extend(
            (fence.start(1), max(fence.end(1), fence.start(1) + 1))
            for fence in FENCE.finditer(text)
            if PROGRAM.search(fence.group(1)) is not None
        )
    if "<script" in text or "<SCRIPT" in text:
        spans.extend(
            (block.start(1), max(block.end(1), block.start(1) + 1))
            for block in SCRIPT.finditer(text)
        )
    if "<code" in text or "<CODE" in text or "<pre" in text or "<PRE" in text:
        spans.extend(
            (block.start(2), max(block.end(2), block.start(2) + 1))
            for block in CODE_TAG.finditer(text)
            if PROGRAM.search(block.group(2)) is not None
        )
    if len(spans) > 1:
        spans = _disjoint(spans)
    return tuple(spans)


def _disjoint(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans sorted, overlapping ones joined (a fence inside a script): `within` bisects."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start < joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


@lru_cache(maxsize=8)
def nested(text: str, opening: str = "[", closing: str = "]") -> frozenset[int]:
    """Where the reply opens a bracket inside another open one (in the same paragraph): the
    pieces of a nested list, or of a model looping `[the result is [the result is ...`.
    One pass over the reply."""
    inside: set[int] = set()
    depth = 0
    for match in re.finditer(rf"\n[ \t]*\n|[{re.escape(opening + closing)}]", text):
        token = match.group()
        if token == opening:
            if depth > 0:
                inside.add(match.start())
            depth += 1
        elif token == closing:
            depth = max(0, depth - 1)
        else:  # a blank line: a bracket left open above does not hold what follows
            depth = 0
    return frozenset(inside)


# Three or more lists in a row on one line, parted by commas: a model looping, not one answer.
_RUN = re.compile(r"\[[^\[\]\n]*\](?:[ \t]*,[ \t]*\[[^\[\]\n]*\]){2,}")
_OPENING = re.compile(r"\[")


@lru_cache(maxsize=8)
def looped(text: str) -> frozenset[int]:
    """Where a list of a run of three or more (`[1, 8, 3], [4, 5, 9], [7, 6, 7], ...`) opens:
    pieces of a loop, none of them the answer. One pass over the reply."""
    return frozenset(
        opening.start()
        for run in _RUN.finditer(text)
        for opening in _OPENING.finditer(text, run.start(), run.end())
    )


def other_input_spans(
    text: str, statements: Iterable[tuple[int, bool]], prompt: str = ""
) -> tuple[tuple[int, int], ...]:
    """The stretches of the reply that are about another input than the real one.

    `statements` are the places where the reply states an input, with whether it is the real
    one (the task decides: a list in the prompt's <input>, <part>, ... tags). A stretch starts
    at a stated input that is not the real one, or at an example marker (`for example`, ...),
    and ends at a blank line or where the real input is stated; one opened by an example
    marker also ends with the marker's sentence. A marker inside an element of the prompt's
    given back (`in_prompt_element`: `<errors>... (only code, examples for other inputs)`) is
    the prompt's words, and opens none."""
    events: list[tuple[int, int]] = [(pos, 1 if real else 0) for pos, real in statements]
    events += [(m.start(), 2) for m in PARAGRAPH.finditer(text)]
    markers = {
        m.start(): m.end()
        for m in EXAMPLE.finditer(text)
        if not (prompt and in_prompt_element(text, m.start(), prompt))
    }
    if markers:  # the sentence ends, found once per reply (not once per marker)
        events += [(m.start(), 3) for m in SENTENCE_END.finditer(text)]
        events += [(pos, 0) for pos in markers]
    spans: list[tuple[int, int]] = []
    opened, sentence_from = -1, _END  # where a sentence end closes the open stretch
    for pos, kind in sorted(events):
        if kind == 0 and opened < 0:
            opened = pos
            sentence_from = markers.get(pos, _END)  # an example's: its sentence, after `e.g.`
        elif kind == 0 and pos in markers and sentence_from < _END:  # `such as e.g.`
            sentence_from = max(sentence_from, markers[pos])
        elif opened >= 0 and (kind in (1, 2) or (kind == 3 and pos >= sentence_from)):
            spans.append((opened, pos + (kind == 3)))
            opened = -1
    if opened >= 0:
        spans.append((opened, len(text)))
    return tuple(spans)


def in_other_input(
    others: tuple[tuple[int, int], ...], text: str, start: int, prompt: str, echo: bool
) -> bool:
    """Is the candidate at `start` in a stretch about another input (`other_input_spans`, where
    it belongs: `anchor`), unless it fills the slot of the prompt's format line given back
    (`fills_format_slot`: a value of the reply's own, no echo)?"""
    if not within(others, anchor(text, start)):
        return False
    return echo or not fills_format_slot(text, start, prompt)


# The example marker of a prompt's format line ("..., such as {"Peru": 2}"), right before a value.
_SLOT = re.compile(r"(?i)such as[ \t]*:[ \t`*]*\n[\s`*]*$")


def fills_format_slot(text: str, start: int, prompt: str) -> bool:
    """Does the value at `start` stand on lines of its own right after the prompt's format line
    given back and closed by a colon ("A JSON object mapping each country to its count, such
    as:" then the object)? Given back with the prompt's own example, the line is the
    instruction restated (the example an echo); presenting a value of the reply's own on the
    next line, the reply has filled the format's slot: that value is no example for another
    input but its answer in that format. The format line run on into a value of the reply's
    own on the same line ("..., such as {"Japan": 104}") still gives an example of the format.
    The caller asks only for a value that is no echo."""
    slot = _SLOT.search(text, max(0, start - 20), start)
    if slot is None or not prompt:
        return False
    lead = text[max(0, slot.start() - GIVEN_BACK) : slot.start() + len("such as")].lstrip()
    return len(lead) > GIVEN_BACK // 2 and lead.lower() in prompt.lower()


# What sets one candidate against the next: `or`, `instead of`, `rather than`.
_OR = re.compile(r"[\s,;]*(?:or|instead\s+of|rather\s+than)\b[^\n]{0,40}\Z")


def alternatives(text: str, spans: list[tuple[int, int]]) -> frozenset[int]:
    """The starts of candidates offered as alternatives on one line (`[1, 2, 3] or any
    repetition of [0, 4]`) or set against each other ("use: [0, 1, 4] instead of [1, 2]",
    "the output will be: [31, 57, 20] instead of [49, 61, 38"): a reply that offers two, or
    weighs one against another, commits to neither."""
    offered: set[int] = set()
    ordered = sorted(spans)
    for (start, end), (after, _) in pairwise(ordered):
        if not 0 < after - end <= 60:
            continue
        gap = text[end:after]
        if "\n" not in gap and _OR.match(gap):
            offered.update((start, after))
    return frozenset(offered)


def within(spans: tuple[tuple[int, int], ...], start: int) -> bool:
    """Is `start` inside one of the (sorted, disjoint) `spans`?"""
    index = bisect_right(spans, (start, _END)) - 1
    return index >= 0 and spans[index][0] <= start < spans[index][1]


_CLOSING = re.compile(r"</(input|part|a|b|result|incorrectly_sorted|original)>")


@lru_cache(maxsize=64)
def tagged(prompt: str) -> str:
    """The prompt's own inputs: the text inside its <input>, <part>, <a>, <b>, ... tags (the
    few-shot examples around them are other inputs). Each closing tag pairs with the nearest
    opening one before it (a prompt also names its tags in words: "the list in <input>")."""
    found = []
    for match in _CLOSING.finditer(prompt):
        opening = f"<{match.group(1)}>"
        begin = prompt.rfind(opening, 0, match.start())
        if begin >= 0:
            found.append(prompt[begin + len(opening) : match.start()])
    return "\n".join(found)
