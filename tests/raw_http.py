"""A raw HTTP/1.1 server on 127.0.0.1 for the transport tests: it answers each request with
scripted bytes, whatever they are, and records the requests and the connections it took."""

from __future__ import annotations

import json
import socket
import threading


def answer(text: str = "[1, 3, 5, 9]") -> bytes:
    """A chat-completions body with one choice and its usage."""
    choice = {"index": 0, "message": {"role": "assistant", "content": text}}
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    return json.dumps({"choices": [choice], "usage": usage}).encode()


def response(body: bytes, *headers: str, status: str = "200 OK", length: bool = True) -> bytes:
    """A whole response: the status line, `headers`, a Content-Length unless `length` is
    False, and `body`."""
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json", *headers]
    if length:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class RawServer:
    """Answers the i-th request with `script[i]` (bytes, or "close": hang up unanswered); a
    script entry ending in b"<close>" is sent, then the connection is closed."""

    def __init__(self, script: list[bytes | str]) -> None:
        self.script = list(script)
        self.connections = 0
        self.requests: list[bytes] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._lock = threading.Lock()
        self.hung_up = threading.Semaphore(0)  # released each time a connection is closed
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            self._converse(conn)
        finally:
            self.hung_up.release()

    def _converse(self, conn: socket.socket) -> None:
        with conn:
            reader = conn.makefile("rb")
            while True:
                head = b""
                while not head.endswith(b"\r\n\r\n"):
                    byte = reader.read(1)
                    if not byte:
                        return
                    head += byte
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                reader.read(length)
                with self._lock:
                    self.requests.append(head)
                    step = self.script.pop(0) if self.script else response(answer())
                if step == "close":
                    return
                assert isinstance(step, bytes)
                closing = step.endswith(b"<close>")
                conn.sendall(step.removesuffix(b"<close>"))
                if closing:
                    return

    def close(self) -> None:
        self._sock.close()
