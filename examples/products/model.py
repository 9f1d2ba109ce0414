"""A hand-written "model" for the products task: try every scheme offline, with no endpoint.

`--model py:examples.products.model:answer` (run from the repository root). It reads the lists
in the prompt's tagged blocks, as a model would read them, and answers with their distinct
names, sorted. It holds at most 6 names of what it reads (more are forgotten) and, when a check
lists errors, fixes at most 3 of them a reply: a stand-in whose mistakes grow with the input,
so that the schemes differ. Replace it with your own function `prompt -> str`.
"""

import json
import re

MEMORY = 6  # names it keeps of what it reads
FIXES = 3  # errors it acts on a reply


def answer(prompt: str) -> str:
    fixing = _block(prompt, "answer") or _block(prompt, "result")
    if fixing:  # improve (ToT, GoT's fixes) and refine: the answer and its errors
        names = _fixed(_names(fixing), _block(prompt, "errors"))
    elif _block(prompt, "a"):  # a merge: every result it is given
        names = [n for tag in "abcdefgh" for n in _names(_block(prompt, tag))]
    else:  # io, cot, a part: the input
        names = _names(_block(prompt, "part") or _block(prompt, "input"))
    return "Answer: " + json.dumps(sorted(dict.fromkeys(names))[:MEMORY] if not fixing else names)


def _block(prompt: str, tag: str) -> str:
    found = re.findall(rf"<{tag}>((?:(?!<{tag}>).)*?)</{tag}>", prompt, re.DOTALL)  # innermost
    return found[-1] if found else ""


def _names(text: str) -> list[str]:
    try:
        return [str(name) for name in json.loads(text.strip())]
    except ValueError:
        return []


def _fixed(names: list[str], errors: str) -> list[str]:
    fixes = re.findall(r'"([^"]+)" (is missing|is not in the log|is listed)', errors)[:FIXES]
    kept = sorted(dict.fromkeys(names))
    for name, what in fixes:
        if what == "is missing":
            kept.append(name)
        elif what == "is not in the log":
            kept.remove(name)
    return sorted(kept)
