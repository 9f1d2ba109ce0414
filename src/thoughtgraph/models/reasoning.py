"""A reasoning model's reply: its thinking kept apart from its answer, and billed.

Servers hand back a reasoning model's thinking in one of two ways:

- inline, in `content`, between `<think>` and `</think>` (llama.cpp with `--reasoning-format
  none`, Ollama's raw output, the DeepSeek-R1 distills, QwQ, Qwen3), or Magistral's `[THINK]`
  and `[/THINK]` (which llama.cpp leaves in `content` whatever its format); a chat template
  that opens the block itself leaves only the closing `</think>` in the reply, and a reply cut
  by the completion cap ends inside an unclosed `<think>`;
- in a field of the message beside `content`: `reasoning_content` (vLLM's reasoning parsers,
  DeepSeek's API, llama.cpp's default) or `reasoning` (OpenRouter, Ollama's OpenAI API, newer
  vLLM); `content` is then null or empty while the model still thinks.

The thinking is the model working the problem out, often with lists that are not its answer, so
it is never read as the answer (`read_message`); it is kept beside it (the trace, the cache, the
viewer). Its tokens are billed: `usage.completion_tokens_details.reasoning_tokens` says how many
of the completion tokens were thinking (OpenAI, DeepSeek and OpenRouter count them inside
`completion_tokens`; `billed_completion` adds them only where a server left them out), and a
reply without usage has them counted from the reasoning text as well as the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""The message fields servers put a reasoning model's thinking in, in the order read."""

THINKING_ROOM = 16_384
"""Tokens added to the default completion cap of a model that reasons (declared, or seen
reasoning in its replies): its thinking comes before its answer and is cut by the same cap."""

# `<think>` (any case) and Magistral's `[THINK]` special tokens (upper case, as it writes them;
# llama.cpp leaves them in `content`)
_OPEN = re.compile(r"<(?:think|thinking)>|(?-i:\[THINK\])", re.IGNORECASE)
_CLOSE = re.compile(r"</(?:think|thinking)>|(?-i:\[/THINK\])", re.IGNORECASE)
_BLOCK = re.compile(
    r"<(think|thinking)>(.*?)</\1>|(?-i:\[THINK\])(.*?)(?-i:\[/THINK\])", re.IGNORECASE | re.DOTALL
)


def may_think(text: str) -> bool:
    """`text` may hold inline thinking (a cheap test: the usual reply holds no tag)."""
    return "<" in text or "THINK]" in text


@dataclass(frozen=True, slots=True)
class Reply:
    """One choice as read: the answer, the thinking before it, and whether the reply stopped
    inside the thinking (`unclosed`: a `<think>` never closed, the reply cut)."""

    answer: str
    reasoning: str = ""
    unclosed: bool = False

    @property
    def reasons(self) -> bool:
        return bool(self.reasoning.strip())


def split_inline(text: str, cut: bool = False) -> Reply:
    """`text` with its inline `<think>` blocks taken out: every closed block, everything before
    a closing tag whose opening one the chat template wrote (`...</think>answer`), and
    everything after an opening tag never closed (the reply was cut while thinking) where
    thinking starts: at the reply's start, in a reply with blocks of thinking, or in one the
    cap `cut` (it stopped in there). A lone `<think>` after other text in a whole reply that
    shows no thinking is text: the answer quoting its input or remarking on the tag."""
    if not may_think(text):  # the usual reply: nothing to look for
        return Reply(text)
    thoughts: list[str] = []

    def taken(match: re.Match[str]) -> str:
        thoughts.append(match.group(2) if match.group(1) else match.group(3))
        return ""

    rest = _BLOCK.sub(taken, text)
    closes = list(_CLOSE.finditer(rest))
    if closes:  # opened by the template, in the prompt
        last = closes[-1]
        thoughts.insert(0, _CLOSE.sub("", rest[: last.start()]))
        rest = rest[last.end() :]
    unclosed = False
    opened = _OPEN.search(rest)
    # cut while thinking: a block opened where thinking starts (the reply's start) or in a
    # reply that thinks in blocks; elsewhere the tag is text (an input quoted back, a remark)
    if opened is not None and (cut or thoughts or not rest[: opened.start()].strip()):
        thoughts.append(rest[opened.end() :])
        rest, unclosed = rest[: opened.start()], True
    if not thoughts:
        return Reply(text)
    reasoning = "\n\n".join(t.strip() for t in thoughts if t.strip())
    return Reply(rest.strip(), reasoning, unclosed)


def read_message(message: Mapping[str, object], cut: bool = False) -> Reply | None:
    """A chat-completions message read as answer and thinking (None: it holds neither text
    content nor thinking, a malformed choice). A message whose `content` is null but which
    holds thinking is an empty answer: the model had not answered yet. `cut`: the cap stopped
    the reply (`split_inline`)."""
    content = message.get("content")
    field_text = next(
        (value for name in REASONING_FIELDS if isinstance(value := message.get(name), str)), ""
    )
    if not isinstance(content, str):
        return Reply("", field_text) if field_text.strip() else None
    inline = split_inline(content, cut)
    if not field_text.strip():
        return inline
    reasoning = "\n\n".join(t for t in (field_text.strip(), inline.reasoning) if t)
    return Reply(inline.answer, reasoning, inline.unclosed)


def reasoning_tokens(usage: Mapping[str, object]) -> int:
    """`usage.completion_tokens_details.reasoning_tokens` (0 when not reported)."""
    details = usage.get("completion_tokens_details")
    value = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def billed_completion(usage: Mapping[str, object], completion: int, prompt: int) -> int:
    """The completion tokens a response billed, its thinking included. OpenAI, DeepSeek and
    OpenRouter count `reasoning_tokens` inside `completion_tokens`; a server whose reasoning
    tokens exceed its completion tokens, or whose `total_tokens` adds them on top of prompt and
    completion, left them out, and they are added here (never twice)."""
    thinking = reasoning_tokens(usage)
    if not thinking:
        return completion
    total = usage.get("total_tokens")
    left_out = thinking > completion or (
        isinstance(total, int) and total == prompt + completion + thinking != prompt + completion
    )
    return completion + thinking if left_out else completion


def thinking_share(completion: int, thinking_chars: int, answer_chars: int) -> int:
    """Of `completion` tokens, those that were thinking, when a server bills them without
    saying how many (vLLM, llama.cpp): in proportion to the thinking's share of the text."""
    if not thinking_chars:
        return 0
    return completion * thinking_chars // (thinking_chars + answer_chars)


def hit_cap_line(cap: int) -> str:
    """The one line that says a reply was cut by the completion cap while the model thought."""
    return f"the model's reasoning hit --max-completion-tokens {cap}: raise it or set 0"
