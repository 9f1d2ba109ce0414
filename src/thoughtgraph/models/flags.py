"""The model flags of a command: `--model SPEC` plus the openai flags, checked.

`thoughtgraph solve`, `eval` and `tune` take the same model flags; all check them here
(`model_flags` gathers them, `model_options` checks them), so a flag means the same in each and
is refused the same way; `modelspec.model_from_flags` builds the model. The typer declarations
of the flags are the CLI's (`cli/options.py`).
"""

from __future__ import annotations

from typing import Any

from thoughtgraph.errors import InputError, shown
from thoughtgraph.models import secrets
from thoughtgraph.models.spec import normalize_spec

OPENAI_FLAGS = {
    "--base-url": "base_url",
    "--api-key-env": "api_key_env",
    "--temperature": "temperature",
    "--max-completion-tokens": "max_tokens",
    "--timeout": "timeout",
    "--max-retries": "max_retries",
    "--max-response-bytes": "max_response_bytes",
}
"""Each openai flag and the `from_spec` override it sets (`modelspec.py`)."""


def model_options(spec: str, flags: dict[str, Any]) -> dict[str, Any]:
    """The openai flags given (None: not given), checked with their `--flag` names in the
    errors, as the `from_spec` overrides they set (what `thoughtgraph.evaluate` takes as
    `model_options`)."""
    given = {flag: value for flag, value in flags.items() if value is not None}
    base_url = given.get("--base-url")
    if base_url is not None and not str(base_url).lower().startswith(("http://", "https://")):
        shown_url = shown(secrets.mask_urls(str(base_url)))  # an ftp:// URL's password too
        raise InputError(f"--base-url must start with http:// or https://, got {shown_url}")
    size = given.get("--max-response-bytes")
    if size is not None and size < 1:
        raise InputError(f"--max-response-bytes must be at least 1, got {size}")
    temperature = given.get("--temperature")
    if temperature is not None and not (0 <= temperature <= 2):
        raise InputError(f"--temperature must be between 0 and 2, got {temperature}")
    tokens = given.get("--max-completion-tokens")
    if tokens is not None and tokens < 0:
        raise InputError(f"--max-completion-tokens must be 0 (no cap) or more, got {tokens}")
    if given and normalize_spec(spec).partition(":")[0].strip().lower() != "openai":
        raise InputError(f"{', '.join(given)}: only for openai:MODEL models, not {shown(spec)}")
    return {OPENAI_FLAGS[flag]: value for flag, value in given.items()}


def model_flags(
    base_url: str | None,
    api_key_env: str | None,
    temperature: float | None,
    max_completion_tokens: int | None,
    timeout: float | None,
    max_retries: int | None,
    max_response_bytes: int | None = None,
) -> dict[str, Any]:
    """The openai flags as `model_from_flags` takes them (None: not given)."""
    return {
        "--base-url": base_url,
        "--api-key-env": api_key_env,
        "--temperature": temperature,
        "--max-completion-tokens": max_completion_tokens,
        "--timeout": timeout,
        "--max-retries": max_retries,
        "--max-response-bytes": max_response_bytes,
    }
