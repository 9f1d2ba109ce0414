"""Paper-style prompts for document merging (IO, CoT, ToT improve, GoT merge, the model scorer).

In our own words. Documents appear as `<Doc1>...</Doc1>` blocks inside `<documents>`; a merge is
asked for between `<Merged>` tags; the scorer answers in `<Redundancy>` and `<Retained>` tags.
"""

from __future__ import annotations

from thoughtgraph.tasks.prompts import PromptTemplate

_GOAL = (
    "one NDA that keeps every piece of information of the documents (parties, purpose, what is "
    "confidential, obligations, exclusions, term, penalties, governing law, signatures) and "
    "states each piece only once"
)
_REPLY = "Reply only with the merged NDA between the tags <Merged> and </Merged>."

IO = PromptTemplate(
    "Merge the NDA documents in <documents> into "
    + _GOAL
    + ". "
    + _REPLY
    + "\n\n<documents>\n{{input}}\n</documents>"
)

COT = PromptTemplate(
    "Merge the NDA documents in <documents> into " + _GOAL + ". Work step by step: cut each "
    "document into its clauses, group the clauses that say the same thing, keep one clause per "
    "group (the most complete one, adding any detail the others have), then write the groups in "
    "a sensible order. You may write your steps first; then give the merged NDA between the tags "
    "<Merged> and </Merged>.\n\n<documents>\n{{input}}\n</documents>"
)

IMPROVE = PromptTemplate(
    "The NDA in <S> merges the NDA documents in <documents>, but it can be better: it may have "
    "lost information of the documents or say something twice. Improve it into "
    + _GOAL
    + ". "
    + _REPLY
    + "\n\n<documents>\n{{original}}\n</documents>\n<S>\n{{current}}\n</S>"
)

PAPER_MERGE = PromptTemplate(
    "Each of the {{count}} NDAs in <versions> is an attempt to merge the NDA documents in "
    "<documents>. Combine the versions into a new one that takes the best of each: "
    + _GOAL
    + ". "
    + _REPLY
    + "\n\n<documents>\n{{original}}\n</documents>\n<versions>\n{{results}}\n"
    "</versions>"
)

SCORE = PromptTemplate(
    "The NDA in <S> merges the NDA documents in <documents>. Rate it on two scales from 0 to 10. "
    "Redundancy: 10 if nothing in <S> is said twice, 0 if at least half of it repeats itself. "
    "Retention: 10 if <S> keeps all the information of the documents, 0 if it keeps none. You may "
    "explain your rating first; then give the redundancy score between the tags <Redundancy> and "
    "</Redundancy> and the retention score between the tags <Retained> and </Retained>, with "
    "nothing but the number inside the tags.\n\n<documents>\n{{original}}\n</documents>\n"
    "<S>\n{{current}}\n</S>"
)

PROMPTS = {"io": IO, "cot": COT, "improve": IMPROVE, "paper_merge": PAPER_MERGE, "score": SCORE}
