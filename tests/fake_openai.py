"""A real OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

The SDK talks to it over a loopback socket exactly as it would to a provider (the openai 3.x SDK
uses httpx2, so transport mocks such as respx cannot intercept it). It answers sorting prompts
with the simulated model's logic, honours `n`, reports `usage`, records every request, and plays
a script of faults, one per request, so each test can stage the failure it is about:

    with FakeOpenAI() as server:
        server.script(Fault("429", seconds=0.2), Fault("500"))
        model = OpenAIModel("sim", base_url=server.base_url)

A reasoning model: `thinking="inline"` (a `<think>` block before the answer in `content`;
`"magistral"`: Magistral's `[THINK]` block, as llama.cpp leaves it in `content`) or
`"reasoning_content"` / `"reasoning"` (the thinking in that field of the message) thinks
`think_tokens` tokens (one a word, lists among them that are not the answer) before it
answers, and honours the request's `max_tokens` as a server does: a reply past it is cut
(`finish_reason` "length"), inside the thinking when the cap is below it. `produced` counts every
token the server made (prompt and completion, thinking included) in its 200 answers.

Beyond the script, `fault_rate` fails that share of requests at random (seeded by `seed`, kinds
drawn from `random_faults`), and `fault_when(body)` may return a fault for any request (e.g. only
for merge prompts). `answered` counts the completions sent in 200 answers that carried any, so a
test can check that every answer that arrived was counted and cached.

`fake_openai` below is a fixture giving a fresh server per test; to share it with every test
module, import it in tests/conftest.py (`from .fake_openai import fake_openai  # noqa: F401`).
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest

from thoughtgraph.sim.model import SimulatedModel

PATHS = ("/v1/chat/completions", "/chat/completions")

FAULT_KINDS = {
    "429": "rate limited; Retry-After: `seconds` (when > 0)",
    "500": "internal server error; Retry-After: `seconds` (when > 0)",
    "delay": "sleep `seconds`, then answer normally (longer than the client timeout: a timeout)",
    "malformed": "200 with a JSON content type and a body that is not JSON",
    "empty": "200 with an empty `choices` list",
    "null": "200 with a choice whose content is null",
    "few": "200 with one choice whatever `n` was",
    "reject_n": "400 invalid_request_error about `n`",
    "401": "authentication error",
    "403": "permission denied",
    "404": "model not found",
    "reset": "close the connection without answering",
    "blank": "200 whose every choice is the empty string",
    "body": "200 with `body` (any JSON value) as the whole answer: a hostile server's own shape",
    "trickle_headers": "the answer, its header lines sent one byte every `seconds`",
    "trickle_body": "the answer, its body sent one byte every `seconds`",
    "endless": "`status` (200 unless given) with a chunked body that never ends (64 KiB chunks "
    "until the client leaves)",
    "huge": "200 with a valid answer `body` bytes long (an int), with its Content-Length",
    "gzip_bomb": "`status` (200 unless given), Content-Encoding gzip: a small body that inflates "
    "to `body` bytes (an int)",
    "redirect": "`status` (307 unless given) to the URL `body` (None: the request's own URL)",
    "raw": "`status` (200 unless given) with `body` (bytes) as the whole JSON answer, as is",
}
STREAM_MAX = 2**30  # the most a streaming fault sends: a test server's loop stops by itself


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour, used for the next request (see FAULT_KINDS)."""

    kind: str
    seconds: float = 0.0
    body: Any = None  # the answer of a "body" fault
    status: int | None = None  # the status of a "redirect", "raw", "endless" or "gzip_bomb" fault

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r} (known: {', '.join(FAULT_KINDS)})")


@dataclass(frozen=True)
class Request:
    """What the server received. The Authorization header is not kept, only whether it matched."""

    time: float  # time.monotonic() when the request arrived
    path: str
    body: Any
    headers: dict[str, str]
    had_key: bool  # an Authorization header was sent
    fault: str | None = None

    @property
    def n(self) -> int:
        return self.body.get("n", 1) if isinstance(self.body, dict) else 1


@dataclass
class FakeOpenAI:
    """The server. Options:

    honour_n: answer n choices when asked for n (False: always one, like many local servers).
    reject_n: answer 400 to any request with n > 1.
    require_key: answer 401 unless `Authorization: Bearer <require_key>` is sent.
    echo_key: put the presented Authorization header into error messages (a hostile server,
        to prove our errors scrub the key).
    report_usage: include `usage` in answers.
    error: the simulated model's slip scale (0: always the correct answer).
    fault_rate: share of requests failed at random with one of `random_faults` (seeded by `seed`).
    fault_when: a function of the request body that may return a fault for that request.
    latency: seconds every answer waits before it is sent (a model's think time, for benches).
    one_choice: llama.cpp's llama-server: any request with n > 1 is refused with this status
        (500 or 400) and its message "Only one completion choice is allowed".
    thinking, think_tokens: a reasoning model (see the module doc); reasoning_details: its usage
        says how many tokens were thinking (`completion_tokens_details`), as vLLM's does not.
    context: the model's context, as vLLM refuses a request past it (400, its own words).
    usage_fields: values put over a reasoning model's usage fields (a server's broken counts).
    streamed: for each streaming fault (trickle_*, endless, huge), the bytes it wrote and
        whether it wrote them all (False: the client left first).
    """

    honour_n: bool = True
    reject_n: bool = False
    require_key: str | None = None
    echo_key: bool = False
    report_usage: bool = True
    error: float = 0.0
    fault_rate: float = 0.0
    random_faults: tuple[str, ...] = ("500",)
    seed: int = 0
    fault_when: Callable[[Any], Fault | str | None] | None = None
    latency: float = 0.0
    one_choice: int | None = None
    thinking: str | None = None  # "inline", "reasoning_content" or "reasoning": a model that thinks
    think_tokens: int = 1500
    reasoning_details: bool = True  # usage says how many tokens were thinking (vLLM: no)
    context: int | None = None  # vLLM's max_model_len: a larger prompt + max_tokens is a 400
    usage_fields: dict[str, Any] = field(default_factory=dict)
    produced: int = 0  # tokens made in 200 answers (prompt + completion, thinking included)
    requests: list[Request] = field(default_factory=list)
    streamed: list[tuple[int, bool]] = field(default_factory=list)
    answered: int = 0  # completions sent in 200 answers with text
    _faults: deque[Fault] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: _Server | None = None
    _thread: threading.Thread | None = None
    _answers: int = 0
    _rng: random.Random | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> Self:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True  # a handler sleeping in a "delay" fault never blocks
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not running"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # --- test controls --------------------------------------------------------------------
    def script(self, *faults: Fault | str) -> None:
        """Queue faults; each request consumes one, then requests are answered normally."""
        with self._lock:
            self._faults.extend(f if isinstance(f, Fault) else Fault(f) for f in faults)

    @property
    def pending_faults(self) -> int:
        return len(self._faults)

    def times(self) -> list[float]:
        return [r.time for r in self.requests]

    # --- used by the handler --------------------------------------------------------------
    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_fault(self, body: Any) -> Fault | None:
        with self._lock:
            if self._faults:
                return self._faults.popleft()
            if self._rng is None:
                self._rng = random.Random(self.seed)
            if self.fault_rate and self._rng.random() < self.fault_rate:
                return Fault(self._rng.choice(self.random_faults))
        chosen = self.fault_when(body) if self.fault_when is not None else None
        return Fault(chosen) if isinstance(chosen, str) else chosen

    def _count_answers(self, count: int) -> None:
        with self._lock:
            self.answered += count

    def _answer(self, prompt: str) -> str:
        with self._lock:
            self._answers += 1
            rng = random.Random(self._answers)
        return SimulatedModel(error=self.error).answer(prompt, rng)


class _Server(ThreadingHTTPServer):
    """A threading server whose listen backlog fits a concurrent client (parallel singles
    connect all at once: none may be turned away).

    The default backlog of 5 makes the kernel drop connection attempts when 16+ arrive at once;
    the SDK then retries about a second later, and a test or bench measures that stall instead
    of the engine.
    """

    request_queue_size = 1024


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeOpenAI/1.0"
    # keep-alive, as a provider does: with HTTP/1.0 every request paid a new connection (and a
    # new server thread); every answer carries a Content-Length, so HTTP/1.1 is safe
    protocol_version = "HTTP/1.1"
    # headers and body go out in two sends: without TCP_NODELAY the second waits for the
    # client's delayed ACK (40 ms) on a kept-alive connection
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # keep tests quiet
        pass

    def do_POST(self) -> None:
        fake: FakeOpenAI = self.server.fake  # type: ignore[attr-defined]
        arrived = time.monotonic()
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        auth = self.headers.get("Authorization", "")
        fault = fault_kind = None
        if self.route in PATHS and not self._key_rejected(fake, auth):
            fault = fake._next_fault(body)
            fault_kind = fault.kind if fault else None
        headers = {k: v for k, v in self.headers.items() if k.lower() != "authorization"}
        fake._record(Request(arrived, self.path, body, headers, bool(auth), fault_kind))
        # The client may give up (timeout) while we answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._respond(fake, body, auth, fault)

    @property
    def route(self) -> str:
        """The path without its query string (recorded requests keep the whole path)."""
        return self.path.split("?", 1)[0]

    def _key_rejected(self, fake: FakeOpenAI, auth: str) -> bool:
        return fake.require_key is not None and auth != f"Bearer {fake.require_key}"

    def _respond(self, fake: FakeOpenAI, body: Any, auth: str, fault: Fault | None) -> None:
        echo = f" (you sent {auth!r})" if fake.echo_key else ""
        if self.route not in PATHS:
            return self._error(404, f"no route {self.path}", "not_found")
        if self._key_rejected(fake, auth):
            return self._error(401, f"Incorrect API key provided{echo}", "invalid_api_key")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return self._error(400, "messages is required", "invalid_request_error")
        n = body.get("n", 1)
        kind = fault.kind if fault else None
        if kind == "reset":
            self.close_connection = True
            return None
        if kind == "delay":
            time.sleep(fault.seconds)  # type: ignore[union-attr]
        if kind in ("429", "500"):
            headers = {"Retry-After": f"{fault.seconds:g}"} if fault and fault.seconds else {}
            status = int(kind)
            return self._error(status, f"simulated {status}{echo}", "server_error", headers)
        if kind in ("401", "403"):
            return self._error(int(kind), f"Incorrect API key provided{echo}", "invalid_api_key")
        if kind == "404":
            return self._error(404, f"The model does not exist{echo}", "model_not_found")
        if fake.one_choice is not None and n > 1:  # llama-server's own words and shape
            message = "Only one completion choice is allowed"
            error = {"code": fake.one_choice, "message": message, "type": "server_error"}
            return self._json(fake.one_choice, {"error": error})
        if kind == "gzip_bomb":
            payload = gzip.compress(b"a" * int(fault.body), compresslevel=9)  # type: ignore[union-attr]
            return self._send(fault.status or 200, payload, {"Content-Encoding": "gzip"})  # type: ignore[union-attr]
        if kind == "redirect":
            host, port = self.server.server_address[:2]
            location = fault.body or f"http://{host}:{port}{self.path}"  # type: ignore[union-attr]
            return self._send(fault.status or 307, b"", {"Location": location})  # type: ignore[union-attr]
        if kind == "raw":
            return self._send(fault.status or 200, fault.body, {})  # type: ignore[union-attr]
        if kind in ("trickle_headers", "trickle_body", "endless", "huge"):
            return self._stream(fake, fault, body)  # type: ignore[arg-type]
        if (kind == "reject_n" or fake.reject_n) and n > 1:
            return self._error(
                400,
                f"n must be 1 for this model (got {n}){echo}",
                "invalid_request_error",
                param="n",
            )
        if kind == "malformed":
            return self._send(200, b'{"id": "chatcmpl-1", "choices": [', {})
        if kind == "body":
            return self._json(200, fault.body)  # type: ignore[union-attr]
        cap, asked = body.get("max_tokens"), max(1, len(_user_text(body["messages"])) // 4)
        if fake.context is not None and isinstance(cap, int) and asked + cap > fake.context:
            message = (  # vLLM's words (vllm/entrypoints/openai/serving_engine.py)
                f"This model's maximum context length is {fake.context} tokens. However, you "
                f"requested {asked + cap} tokens ({asked} in the messages, {cap} in the "
                "completion). Please reduce the length of the messages or completion."
            )
            return self._error(400, message, "BadRequestError", param="max_tokens")
        if fake.latency:
            time.sleep(fake.latency)
        count = n if fake.honour_n and kind != "few" else 1
        prompt = _user_text(body["messages"])
        texts = [fake._answer(prompt) for _ in range(count)]
        if kind == "blank":
            texts = ["" for _ in texts]
        if fake.thinking is not None:
            data = _thinking_completion(fake, body, prompt, texts)
            return self._json(200, data)
        data = _completion(body, prompt, texts, kind, fake.report_usage)
        if kind not in ("empty", "null"):  # counted before it is sent: the client may be quick
            fake._count_answers(len(data["choices"]))
        return self._json(200, data)

    def _stream(self, fake: FakeOpenAI, fault: Fault, body: Any) -> None:
        """A streaming fault: written piece by piece, stopped when the client leaves."""
        self.close_connection = True
        if fault.kind == "endless":
            head = b"HTTP/1.1 %d Endless\r\nContent-Type: application/json\r\n" % (
                fault.status or 200
            )
            head += b"Transfer-Encoding: chunked\r\n\r\n"
            chunk = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"
            pieces = itertools.chain([head], itertools.repeat(chunk, STREAM_MAX // len(chunk)))
            return self._write_all(fake, pieces, 0)
        if fault.kind == "huge":
            size = int(fault.body)
            before = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
            after = b'"}}]}'
            padding = size - len(before) - len(after)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            head += b"Content-Length: %d\r\n\r\n" % size
            full, rest = divmod(padding, 2**16)
            pieces = itertools.chain(
                [head, before], itertools.repeat(b"a" * 2**16, full), [b"a" * rest, after]
            )
            return self._write_all(fake, pieces, 0)
        prompt = _user_text(body["messages"])
        answer = json.dumps(_completion(body, prompt, [fake._answer(prompt)], None, True))
        payload = answer.encode()
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        head += b"Content-Length: %d\r\n\r\n" % len(payload)
        if fault.kind == "trickle_headers":
            return self._write_all(fake, [*_bytes(head), payload], fault.seconds)
        return self._write_all(fake, [head, *_bytes(payload)], fault.seconds)

    def _write_all(self, fake: FakeOpenAI, pieces: Iterable[bytes], pause: float) -> None:
        sent, finished = 0, False
        try:
            for piece in pieces:
                self.wfile.write(piece)
                self.wfile.flush()
                sent += len(piece)
                if pause:
                    time.sleep(pause)
            finished = True
        except OSError:  # the client left
            pass
        with fake._lock:
            fake.streamed.append((sent, finished))

    def _error(
        self,
        status: int,
        message: str,
        code: str,
        headers: dict[str, str] | None = None,
        param: str | None = None,
    ) -> None:
        error = {"message": message, "type": code, "param": param, "code": code}
        self._json(status, {"error": error}, headers)

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), headers or {})

    def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _bytes(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def _user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _completion(
    body: dict[str, Any], prompt: str, texts: list[str], kind: str | None, report_usage: bool
) -> dict[str, Any]:
    choices = [
        {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
        for i, t in enumerate(texts)
    ]
    if kind == "empty":
        choices = []
    if kind == "null":
        choices[0]["message"]["content"] = None
    data: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": choices,
    }
    if report_usage:
        prompt_tokens = max(1, len(prompt) // 4)
        completion_tokens = sum(max(1, len(t) // 4) for t in texts)
        data["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return data


def thoughts(answer: str, tokens: int) -> list[str]:
    """`tokens` words of thinking about `answer`: drafts of it with its numbers out of order
    and some left out (lists a reader must never take for the answer)."""
    numbers = [int(n) for n in re.findall(r"-?\d+", answer)] or [7, 3, 5]
    rng = random.Random(len(answer))
    words: list[str] = []
    while len(words) < tokens:
        draft = rng.sample(numbers, max(1, len(numbers) - 1))
        words += ["Let", "me", "try", "the", "list", str(draft) + ".", "No,", "that", "is"]
        words += ["not", "sorted;", "check", "again", "and", "count", "each", "one."]
    return words[:tokens]


def _thinking_completion(
    fake: FakeOpenAI, body: dict[str, Any], prompt: str, texts: list[str]
) -> dict[str, Any]:
    """The answer of a reasoning model, its thinking inline or in a field, cut at `max_tokens`."""
    cap = body.get("max_tokens")
    choices, completion_tokens, thinking_tokens = [], 0, 0
    for index, answer in enumerate(texts):
        words = thoughts(answer, fake.think_tokens)
        answer_tokens = max(1, len(answer) // 4)
        finish = "stop"
        if isinstance(cap, int) and cap < len(words) + answer_tokens:
            finish = "length"
            words, answer = words[:cap], answer[: max(0, cap - len(words)) * 4]
        thinking = " ".join(words)
        message: dict[str, Any] = {"role": "assistant"}
        if fake.thinking in ("inline", "magistral"):
            opened, closing = ("<think>", "</think>")
            if fake.thinking == "magistral":
                opened, closing = ("[THINK]", "[/THINK]")
            closed = f"{closing}\n\n" if len(words) == fake.think_tokens else ""
            message["content"] = f"{opened}\n{thinking}\n{closed}{answer}"
        else:
            message[fake.thinking or "reasoning_content"] = thinking
            message["content"] = answer if answer else None
        choices.append({"index": index, "message": message, "finish_reason": finish})
        completion_tokens += len(words) + (max(1, len(answer) // 4) if answer else 0)
        thinking_tokens += len(words)
    prompt_tokens = max(1, len(prompt) // 4)
    with fake._lock:
        fake.produced += prompt_tokens + completion_tokens
        fake.answered += sum(1 for c in choices if c["finish_reason"] == "stop")
    data: dict[str, Any] = {"id": "chatcmpl-think", "object": "chat.completion", "choices": choices}
    if fake.report_usage:
        data["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        if fake.reasoning_details:
            data["usage"]["completion_tokens_details"] = {"reasoning_tokens": thinking_tokens}
        data["usage"].update(fake.usage_fields)
    return data


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh server per test (starting one takes about a millisecond)."""
    with FakeOpenAI() as server:
        yield server
