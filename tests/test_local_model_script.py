"""scripts/local_model.py's helpers, without building or starting the real server.

The real server on 127.0.0.1:8088 is never touched: every test gets its own folder (pid file,
log), its own free port, and dummy processes: a `llama_cpp.server`-named HTTP server that
answers /v1/models at once or only after a delay (a one-at-a-time server behind a generation),
a plain listening socket (a port someone else took), a `sleep` (a live pid that is no server).
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # dummy server processes, real sockets (seconds in all)

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "local_model.py"

# A stand-in for the server: its command line holds `llama_cpp.server` and `--port N`, as the
# real one's does; single-threaded, so a slow /v1/models holds up the next request too.
DUMMY = textwrap.dedent(
    """
    import http.server, sys, time
    port, delay = int(sys.argv[sys.argv.index("--port") + 1]), float(sys.argv[-1])

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            time.sleep(delay)
            body = b'{"object": "list", "data": [{"id": "smollm2"}]}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", port), Handler)
    print("listening", flush=True)
    server.serve_forever()
    """
)


def load_script() -> ModuleType:
    """scripts/local_model.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("local_model_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def lm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script pointed at a folder and a port of its own, with short waits, whose build
    and extraction do nothing and which may not start a process unless a test says so."""
    module = load_script()
    monkeypatch.setattr(module, "DIR", tmp_path)
    monkeypatch.setattr(module, "PID_FILE", tmp_path / "server.pid")
    monkeypatch.setattr(module, "SERVER_LOG", tmp_path / "server.log")
    monkeypatch.setattr(module, "START_LOCK", tmp_path / "start.lock")
    monkeypatch.setattr(module, "PORT", free_port())
    monkeypatch.setattr(module, "PROBE_SECONDS", 0.5)
    monkeypatch.setattr(module, "BUSY_WAIT_SECONDS", 1.0)
    monkeypatch.setattr(module, "READY_SECONDS", 30.0)
    monkeypatch.setattr(module, "build", lambda: None)
    monkeypatch.setattr(module, "extract_model", lambda: None)

    def no_second_server(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"a server was started: {args}")

    monkeypatch.setattr(module, "launch", no_second_server)
    return module


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """Start dummy processes; each is ended by its own pid at the end of the test."""
    started: list[subprocess.Popen[str]] = []

    def run(*command: str, wait_for_line: bool = False) -> subprocess.Popen[str]:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        started.append(process)
        if wait_for_line:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "listening"
        return process

    yield run
    for process in started:
        process.kill()
        process.wait()


def dummy_server(spawn: Any, tmp_path: Path, port: int, delay: float = 0.0) -> Any:
    script = tmp_path / "dummy_server.py"
    script.write_text(DUMMY)
    return spawn(
        sys.executable,
        str(script),
        "llama_cpp.server",
        *("--port", str(port), str(delay)),
        wait_for_line=True,
    )


def test_the_pid_file_names_pid_and_port_and_older_files_are_still_read(lm: ModuleType):
    lm.write_pid_file(1234, 8090)
    assert lm.PID_FILE.read_text() == "1234 8090\n"
    assert lm.read_pid_file() == (1234, 8090)
    lm.PID_FILE.write_text("4321\n")  # as versions before the port was written
    assert lm.read_pid_file() == (4321, None)
    for junk in ("", "abc", "12x 5"):
        lm.PID_FILE.write_text(junk)
        assert lm.read_pid_file() is None
    lm.PID_FILE.unlink()
    assert lm.read_pid_file() is None


def test_the_port_is_read_from_a_server_command_line():
    lm = load_script()
    assert lm.port_of(["python", "-m", "llama_cpp.server", "--port", "8088"]) == 8088
    assert lm.port_of(["server", "--port=9000"]) == 9000
    assert lm.port_of(["server", "--host", "127.0.0.1"]) is None
    assert lm.port_of(["server", "--port"]) is None


def test_probe_tells_ready_busy_and_down_apart(lm: ModuleType, spawn: Any, tmp_path: Path):
    quick, slow, closed = free_port(), free_port(), free_port()
    dummy_server(spawn, tmp_path, quick)
    dummy_server(spawn, tmp_path, slow, delay=30)
    assert lm.probe(quick, timeout=10) == lm.READY
    assert lm.probe(slow, timeout=0.3) == lm.BUSY  # listening, /v1/models slow: busy, not down
    assert lm.probe(closed, timeout=0.3) == lm.DOWN


def test_the_server_is_known_by_a_live_pid_running_the_server_and_its_port(
    lm: ModuleType, spawn: Any, tmp_path: Path
):
    server = dummy_server(spawn, tmp_path, lm.PORT)
    lm.PID_FILE.write_text(f"{server.pid}\n")  # the port comes from its command line
    assert lm.known_server() == (server.pid, lm.PORT)
    stranger = spawn("sleep", "60")  # alive, but no server: a recycled pid
    lm.write_pid_file(stranger.pid, lm.PORT)
    assert lm.known_server() is None
    gone = subprocess.Popen(["true"])
    gone.wait()
    lm.write_pid_file(gone.pid, lm.PORT)
    assert lm.known_server() is None


def test_a_busy_server_of_our_own_is_running_not_down(
    lm: ModuleType, spawn: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """The issue's case: /v1/models took 5-11 s behind a generation, the 2 s check called it
    down, a second server was started and died on the port, and the pid file went with it."""
    server = dummy_server(spawn, tmp_path, lm.PORT, delay=30)
    lm.write_pid_file(server.pid, lm.PORT)
    assert lm.main(["start"]) == 0  # Popen would fail the test: no second server
    out = capsys.readouterr().out
    assert f"already running at http://127.0.0.1:{lm.PORT}/v1 (pid {server.pid}), busy" in out
    assert lm.PID_FILE.read_text() == f"{server.pid} {lm.PORT}\n"
    assert server.poll() is None


def test_a_ready_server_of_our_own_is_reported_and_kept(
    lm: ModuleType, spawn: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    server = dummy_server(spawn, tmp_path, lm.PORT)
    lm.PID_FILE.write_text(f"{server.pid}\n")
    assert lm.main(["start"]) == 0
    assert f"already running at http://127.0.0.1:{lm.PORT}/v1 (pid {server.pid})\n" in (
        capsys.readouterr().out
    )
    assert lm.read_pid_file() == (server.pid, None)  # an older pid file is left as it was


def test_no_second_server_on_a_port_someone_else_took(
    lm: ModuleType, capsys: pytest.CaptureFixture[str]
):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", lm.PORT))
        taken.listen()
        assert lm.main(["start"]) == 1
    err = capsys.readouterr().err
    assert f"local-model: error: port {lm.PORT} is taken by a process this folder" in err
    assert not lm.PID_FILE.exists()


def test_a_live_server_on_another_port_keeps_its_pid_file(
    lm: ModuleType, spawn: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    other = free_port()
    server = dummy_server(spawn, tmp_path, other)
    lm.write_pid_file(server.pid, other)
    assert lm.main(["start"]) == 1
    assert f"already runs on port {other} (pid {server.pid})" in capsys.readouterr().err
    assert lm.read_pid_file() == (server.pid, other)
    assert server.poll() is None


def test_a_started_server_that_exits_leaves_no_pid_file(
    lm: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(lm, "launch", lambda command: subprocess.Popen(command))
    monkeypatch.setattr(lm, "server_command", lambda port: [sys.executable, "-c", "exit(1)"])
    assert lm.main(["start"]) == 1
    assert "the server exited" in capsys.readouterr().err
    assert not lm.PID_FILE.exists()


def test_a_started_server_is_waited_for_and_recorded_with_its_port(
    lm: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    script = tmp_path / "dummy_server.py"
    script.write_text(DUMMY)
    command = [sys.executable, str(script), "llama_cpp.server", "--port", str(lm.PORT), "0"]
    started: list[subprocess.Popen[bytes]] = []

    def launch(command: list[str]) -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
        return started[-1]

    monkeypatch.setattr(lm, "launch", launch)
    monkeypatch.setattr(lm, "server_command", lambda port: command)
    try:
        assert lm.main(["start"]) == 0
        assert lm.read_pid_file() == (started[0].pid, lm.PORT)
        assert lm.known_server() == (started[0].pid, lm.PORT)
        assert lm.main(["stop"]) == 0
        assert started[0].poll() is not None
        assert not lm.PID_FILE.exists()
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_a_pid_file_is_removed_only_for_its_own_dead_pid(lm: ModuleType, spawn: Any):
    alive = spawn("sleep", "60")
    lm.write_pid_file(alive.pid, lm.PORT)
    lm.forget_dead_server(alive.pid)
    assert lm.PID_FILE.exists()  # alive: kept
    dead = subprocess.Popen(["true"])
    dead.wait()
    lm.forget_dead_server(dead.pid)
    assert lm.read_pid_file() == (alive.pid, lm.PORT)  # names another pid: kept
    lm.write_pid_file(dead.pid, lm.PORT)
    lm.forget_dead_server(dead.pid)
    assert not lm.PID_FILE.exists()


def test_stop_never_kills_a_pid_that_is_not_our_server(lm: ModuleType, spawn: Any):
    stranger = spawn("sleep", "60")
    lm.write_pid_file(stranger.pid, lm.PORT)
    assert lm.main(["stop"]) == 0
    assert stranger.poll() is None
    assert lm.PID_FILE.exists()


def test_the_tests_skip_only_when_no_server_was_started(lm: ModuleType, spawn: Any, tmp_path: Path):
    url = f"http://127.0.0.1:{lm.PORT}/v1"
    verdict, why = lm.expected_server(url, explicit=False, wait=0)
    assert verdict == "skip" and "no local model server was started" in why
    # the URL given explicitly: expected, so unreachable fails
    verdict, why = lm.expected_server(url, explicit=True, wait=0)
    assert verdict == "fail" and "expected but is unreachable" in why
    # a live server in the pid file whose port is closed: expected, fails
    stranger_port = free_port()
    server = dummy_server(spawn, tmp_path, stranger_port)
    lm.write_pid_file(server.pid, lm.PORT)
    verdict, why = lm.expected_server(url, explicit=False, wait=0)
    assert verdict == "fail" and f"(pid {server.pid}) was expected" in why


def test_the_tests_fail_when_the_server_is_up_but_slow(lm: ModuleType, spawn: Any, tmp_path: Path):
    slow = dummy_server(spawn, tmp_path, lm.PORT, delay=30)
    lm.write_pid_file(slow.pid, lm.PORT)
    verdict, why = lm.expected_server(f"http://127.0.0.1:{lm.PORT}/v1", explicit=False, wait=0)
    assert verdict == "fail" and "is up but /v1/models did not answer" in why


def test_the_tests_run_when_the_server_answers(lm: ModuleType, spawn: Any, tmp_path: Path):
    dummy_server(spawn, tmp_path, lm.PORT)  # no pid file: someone started it by hand
    assert lm.expected_server(f"http://127.0.0.1:{lm.PORT}/v1", False, wait=0) == ("ok", "")


def test_a_wrong_command_is_a_usage_line_and_exit_2(capsys: pytest.CaptureFixture[str]):
    assert load_script().main(["restart"]) == 2
    assert "usage: local_model.py start|stop|status" in capsys.readouterr().err
