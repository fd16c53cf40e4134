"""Every request of the client: adds the API key and, on POST, an `Idempotency-Key`, bounds each
attempt with a timeout, and retries what is safe to retry (the same rules as the TypeScript SDK).

What is retried, and why it is safe:
- 429 (rate limited), any method: the API refuses before running the handler, so nothing happened.
- 409 with `Retry-After` on POST (`idempotency_request_in_progress`): the first attempt of this very
  POST is still running; the retry gets its stored answer.
- 5xx (not 501), network errors and timeouts: for GET/HEAD/PUT/DELETE/OPTIONS (idempotent) and POST
  (its `Idempotency-Key`, the same on every attempt, makes the API answer a repeat with the first
  result). PATCH is not retried then: it may have been applied.
Waits follow `Retry-After` (seconds or an HTTP date) when given, else exponential backoff with jitter.
"""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from ._errors import VoicenameConnectionError, error_from_response

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
BASE_DELAY = 0.5
MAX_BACKOFF = 8.0
#: A `Retry-After` longer than this is not waited for: the error reaches the caller, who can decide.
MAX_RETRY_AFTER = 60.0

QueryValue = str | int | float | bool | None


class RequestOptions(TypedDict, total=False):
    """Per-call options, the last argument of every resource method."""

    #: For POST: your own key, to make a retry of yours (not only the client's) safe. Default: a
    #: random UUID per call, the same on each of its retries.
    idempotency_key: str
    #: Extra headers for this call.
    headers: Mapping[str, str]
    #: Seconds for each attempt of this call, instead of the client's `timeout`.
    timeout: float


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """`Retry-After` in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        date = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, date.timestamp() - (time.time() if now is None else now))


def backoff_seconds(attempt: int, rand: Callable[[], float] = random.random) -> float:
    """Exponential backoff with jitter: attempt 1 waits 0.25-0.5 s, 2 waits 0.5-1 s, ... capped at 8 s."""
    ceiling = min(MAX_BACKOFF, BASE_DELAY * 2.0 ** (attempt - 1))
    return ceiling / 2 + rand() * (ceiling / 2)


def _retryable_failure(method: str) -> bool:
    return method in IDEMPOTENT_METHODS or method == "POST"


def _retryable_status(method: str, response: Response) -> bool:
    if response.status == 429:
        return True
    if response.status == 409:
        return method == "POST" and "retry-after" in response.headers
    return response.status >= 500 and response.status != 501 and _retryable_failure(method)


def _query_string(query: Mapping[str, QueryValue] | None) -> str:
    if not query:
        return ""
    pairs = [(k, ("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Answers are returned as they are: a 3xx (the `.mp3` redirect) is not the client's to follow."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Transport:
    def __init__(self, *, api_key: str, base_url: str, max_retries: int, timeout: float, user_agent: str) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.user_agent = user_agent
        self._opener = urllib.request.build_opener(_NoRedirect)
        #: Replaced by tests that must not wait.
        self.sleep: Callable[[float], None] = time.sleep

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, QueryValue] | None = None,
        json_body: Any = None,
        body: bytes | None = None,
        content_type: str | None = None,
        options: RequestOptions | None = None,
    ) -> Response:
        """Sends the request (with retries); the answer when it is 2xx, else raises `VoicenameError`."""
        response = self.send(method, path, query=query, json_body=json_body, body=body, content_type=content_type, options=options)
        if not 200 <= response.status < 300:
            raise error_from_response(response.status, "", response.headers, response.body)
        return response

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, QueryValue] | None = None,
        json_body: Any = None,
        body: bytes | None = None,
        content_type: str | None = None,
        options: RequestOptions | None = None,
    ) -> Response:
        """The final answer, whatever its status, after the retries that were due."""
        options = options or {}
        headers = {"Authorization": f"Bearer {self.api_key}", "User-Agent": self.user_agent, "Accept": "application/json"}
        if json_body is not None:
            body = json.dumps(json_body, ensure_ascii=False).encode("utf-8")
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        headers.update(options.get("headers") or {})
        if method == "POST" and not any(k.lower() == "idempotency-key" for k in headers):
            headers["Idempotency-Key"] = options.get("idempotency_key") or str(uuid.uuid4())
        url = self.base_url + path + _query_string(query)
        timeout = options.get("timeout", self.timeout)
        attempt = 0
        while True:
            last = attempt >= self.max_retries
            try:
                response = self._attempt(method, url, headers, body, timeout)
            except (urllib.error.URLError, OSError, socket.timeout, ConnectionError) as error:
                if last or not _retryable_failure(method):
                    reason = f"timed out after {timeout} s" if _timed_out(error) else f"failed ({error})"
                    raise VoicenameConnectionError(f"{method} {path} {reason}.") from error
                attempt += 1
                self.sleep(backoff_seconds(attempt))
                continue
            if last or not _retryable_status(method, response):
                return response
            wait = retry_after_seconds(response.headers)
            if wait is None:
                wait = backoff_seconds(attempt + 1)
            if wait > MAX_RETRY_AFTER:
                return response
            attempt += 1
            self.sleep(wait)

    def _attempt(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float) -> Response:
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            with self._opener.open(request, timeout=timeout) as answer:
                return Response(answer.status, _lower(answer.headers.items()), answer.read())
        except urllib.error.HTTPError as error:
            with error:
                return Response(error.code, _lower(error.headers.items()), error.read())


def _lower(items: Any) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in items:
        key = str(name).lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else str(value)
    return headers


def _timed_out(error: BaseException) -> bool:
    reason = getattr(error, "reason", error)
    return isinstance(reason, (socket.timeout, TimeoutError))
