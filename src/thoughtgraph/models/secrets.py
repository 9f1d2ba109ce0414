"""Which credentials are secrets, and keeping those out of everything thoughtgraph writes.

The rule (docs/local-models.md, "API keys"):

- A key is a *secret* only when it is at least `MIN_SECRET_CHARS` long, has some variety, and is
  not a known placeholder. Local servers take any key, so people type `x`, `1`, `EMPTY` (vLLM's
  documented placeholder), `none` or `sk-no-key-required`; replacing every `x` or `1` in the
  answers would corrupt them (`e***ceeded`, `[***, ***, 2]`), so a placeholder is never replaced
  anywhere: answers, prompts, parses and cache entries stay byte-identical.
- A secret is replaced by `***` wherever text leaves the server for us (answer texts and error
  bodies, before anything parses, caches or traces them: a replayed cache entry then parses
  exactly as the live answer did) and in every log line (the SDK and httpx log URLs and, at
  debug level, response headers).
- Secrets in a base URL (`user:password@`, or a query value such as `?api-key=...`) are
  registered too, and the URL is shown with them left out.
- Logs and error messages follow a stricter rule (`mask_urls`): every URL's userinfo and every
  secret-named query value is masked whatever its length, since a short password is no less a
  password and nothing parses a log line.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from urllib.parse import parse_qsl, urlencode, urlsplit

MIN_SECRET_CHARS = 12
MIN_DISTINCT_CHARS = 4
MASK = "***"
# Keys that local servers' docs tell people to send (compared case-insensitively).
PLACEHOLDERS = frozenset(
    {
        "x",
        "1",
        "empty",
        "none",
        "null",
        "no-key",
        "nokey",
        "dummy",
        "ollama",
        "lm-studio",
        "not-needed",
        "sk-no-key-required",
        "sk-xxx",
        "sk-1234",
    }
)

_lock = threading.Lock()
_secrets: set[str] = set()
_factory_installed = False


def is_secret(value: str | None) -> bool:
    """Whether `value` is worth redacting: long, varied and not a known placeholder.

    Digits alone are never a secret (a numeric "key" would mask numbers in sorting answers), and
    the variety is counted after a provider prefix, so `sk-xxxxxxxxxxxxxxxx` stays a placeholder.
    """
    if not value:
        return False
    body = value.strip()
    for prefix in ("sk-proj-", "sk-ant-", "sk-", "pk-", "key-"):
        if body.lower().startswith(prefix):
            body = body[len(prefix) :]
            break
    return (
        len(value) >= MIN_SECRET_CHARS
        and len(set(body)) >= MIN_DISTINCT_CHARS
        and not body.isdigit()
        and value.strip().lower() not in PLACEHOLDERS
    )


def register(value: str | None) -> bool:
    """Remember `value` for redaction if it is a secret; True when it was registered."""
    if not is_secret(value):
        return False
    assert value is not None
    with _lock:
        _secrets.add(value)
    install_log_masking()
    return True


def redact(text: str) -> str:
    """`text` with every registered secret replaced by `***` (placeholders are never secrets)."""
    if not _secrets or not text:
        return text
    for secret in sorted(_secrets, key=len, reverse=True):  # longest first: no partial leftovers
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def check_key(value: str, source: str) -> None:
    """Raise ValueError with one clear line when the key cannot go into an HTTP header.

    A key pasted from a web page often carries a no-break space or a typographic dash; httpx
    would fail deep inside with an exception whose repr quotes `Bearer <key>`. The message names
    the position and the character, never the key.
    """
    for position, char in enumerate(value, start=1):
        if not ("!" <= char <= "~"):
            name = unicodedata.name(char, "a control character")
            raise ValueError(
                f"the API key in {source} has {name} (U+{ord(char):04X}) at character "
                f"{position}; an API key is plain ASCII with no spaces: retype or re-copy it"
            )


SECRET_PARAMS = ("key", "token", "secret", "sig", "password", "passwd", "auth", "credential")
"""A query parameter whose name holds one of these carries a secret (`api-key`, `sas_token`,
`sig`); others (`api-version=2024-08-01-preview`) are masked when a URL is shown, but never
looked for in answers."""


def url_secrets(url: str) -> list[str]:
    """The password and the secret-named query values of `url` (each a candidate secret)."""
    parts = urlsplit(url)
    found = [parts.password] if parts.password else []
    found += [
        value
        for name, value in parse_qsl(parts.query, keep_blank_values=False)
        if any(word in name.lower() for word in SECRET_PARAMS)
    ]
    return found


def public_url(url: str) -> str:
    """`url` as shown in messages: no `user:password@`, every query value masked."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(name, MASK) for name, _ in pairs], safe="*")
    return parts._replace(netloc=netloc, query=query).geturl()


_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]{1,15}://[^\s'\"<>`]+")
_USERINFO = re.compile(r"^([^/?#]*)@")


def mask_urls(text: str) -> str:
    """`text` with every URL's `user:password@` and secret-named query values (`api-key=`,
    `sig=`, `token=`...) replaced by `***`, whatever their length and the URL's scheme.

    For logs and error messages, not answers: here a short password is as secret as a long one,
    and nothing is parsed from a log line, so masking a value that was not a secret costs
    nothing (the answer rule, `is_secret`, has to spare `x` and `1`; this one does not)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: _masked_url(m.group(0)), text)


def _masked_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    rest = _USERINFO.sub(MASK + "@", rest, count=1)
    head, question, query = rest.partition("?")
    if question:
        query = re.sub(
            r"([^&=#]+)=([^&#]*)",
            lambda m: (
                f"{m.group(1)}={MASK}"
                if any(word in m.group(1).lower() for word in SECRET_PARAMS)
                else m.group(0)
            ),
            query,
        )
    return f"{scheme}://{head}{question}{query}"


def clean_line(text: str) -> str:
    """A log line or error message as it may be shown: registered secrets and URL
    credentials masked (`redact` + `mask_urls`)."""
    return mask_urls(redact(text))


class MaskingFilter(logging.Filter):
    """A `logging.Filter` that masks secrets (`clean_line`) in the records it passes; attach it
    to any handler or logger. `install_log_masking` applies the same to every record made."""

    def filter(self, record: logging.LogRecord) -> bool:
        _clean_record(record)
        return True


def _clean_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a malformed log call: leave it to logging to report
        return
    cleaned = clean_line(message)
    if cleaned != message:
        record.msg, record.args = cleaned, ()


def install_log_masking() -> None:
    """Mask every log record as it is made, whichever logger or handler it goes to (httpx's and
    the SDK's request lines included). Idempotent; done when a model with an endpoint is made."""
    global _factory_installed
    with _lock:
        if _factory_installed:
            return
        _factory_installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _clean_record(record)
        return record

    logging.setLogRecordFactory(factory)
