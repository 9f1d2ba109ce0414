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

import base64
import logging
import re
import threading
import unicodedata
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlencode, urlsplit

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
    """The credentials of `url` in every form a server may quote back (each a candidate
    secret): the password, the `Basic` token the HTTP libraries send for `user:password@`
    (base64 of the decoded pair), and each secret-named query value as written, decoded and
    re-encoded."""
    parts = urlsplit(url)
    found: list[str] = []
    if parts.username is not None or parts.password is not None:
        user, password = unquote(parts.username or ""), unquote(parts.password or "")
        found += [parts.password or "", password]
        found.append(base64.b64encode(f"{user}:{password}".encode()).decode())
    for pair in parts.query.split("&"):
        name, _, written = pair.partition("=")
        if written and any(word in unquote_plus(name).lower() for word in SECRET_PARAMS):
            value = unquote_plus(written)
            found += [written, value, quote(value, safe=""), quote_plus(value, safe="")]
    return list(dict.fromkeys(value for value in found if value))


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
# An HTTP credential as a server may quote it back, whatever its length: `Bearer <key>`, and
# `Basic <base64 of user:password>` (the word "basic" alone, as in "basic auth", is no token:
# only base64 that decodes to a `user:password` pair is masked).
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]+")
_BASIC = re.compile(r"(?i)\b(basic\s+)([A-Za-z0-9+/]+={0,2})(?![A-Za-z0-9+/=])")
# a secret-named query value outside a whole URL (a path quoted back: `/v1/x?api-key=...`)
_QUERY_VALUE = re.compile(r"([?&;][^\s&=?#'\"<>`]+)=([^\s&#'\"<>`]*)")


def mask_urls(text: str) -> str:
    """`text` with every URL's `user:password@` and secret-named query values (`api-key=`,
    `sig=`, `token=`...) replaced by `***`, whatever their length and the URL's scheme; also
    each such query value in a path without a scheme (`/chat?key=...`) and each credential of
    an HTTP `Bearer` or `Basic` authorization quoted back.

    For logs and error messages, not answers: here a short password is as secret as a long one,
    and nothing is parsed from a log line, so masking a value that was not a secret costs
    nothing (the answer rule, `is_secret`, has to spare `x` and `1`; this one does not)."""
    if "://" in text:
        text = _URL.sub(lambda m: _masked_url(m.group(0)), text)
    if "=" in text:
        text = _QUERY_VALUE.sub(_masked_query_value, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _BASIC.sub(_masked_basic, text)


def _masked_basic(match: re.Match[str]) -> str:
    try:
        pair = base64.b64decode(match.group(2), validate=True)
    except ValueError:
        return match.group(0)
    return match.group(1) + MASK if b":" in pair else match.group(0)


def _masked_query_value(match: re.Match[str]) -> str:
    name = match.group(1)
    if not any(word in name.lower() for word in SECRET_PARAMS):
        return match.group(0)
    return f"{name}={MASK}"


def _masked_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    rest = _USERINFO.sub(MASK + "@", rest, count=1)
    return f"{scheme}://{rest}"


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
