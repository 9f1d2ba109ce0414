"""A hand-written "model" for the people task: try the pipeline offline, with no endpoint.

`--model py:examples.people.naive_model:names` (run from the repository root). It answers every
prompt with the capitalised pairs of words of the text the prompt ends with: a baseline that is
right about some names and wrong about places and ships, so the figures have something to show.
Replace it with your own function `prompt -> str` (a local pipeline, a mock, a client).
"""

import json
import re


def names(prompt: str) -> str:
    text = prompt.rsplit("<input>", 1)[-1]
    found = sorted(set(re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", text)))
    return "Output: " + json.dumps(found)
