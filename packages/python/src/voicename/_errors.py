"""Typed errors. Every failed API call raises a `VoicenameError` built from the API's envelope
`{"error": {type, code, message, param?, request_id}}`; the subclasses let callers catch the cases
they handle differently (`except NotFoundError`), and `code` names the exact reason. A request that
got no answer at all (network failure, timeout) raises `VoicenameConnectionError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class VoicenameError(Exception):
    """A non-2xx answer of the API."""

    def __init__(
        self,
        *,
        status: int,
        type: str,
        code: str,
        message: str,
        param: str | None = None,
        request_id: str | None = None,
        errors: list[dict[str, Any]] | None = None,
        warnings: list[dict[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        #: The HTTP status.
        self.status = status
        #: The broad class: `invalid_request_error`, `authentication_error`, `idempotency_error`,
        #: `rate_limit_error`, `api_error`.
        self.type = type
        #: The exact reason, e.g. `resource_missing`, `parameter_invalid`, `audio_too_short`.
        self.code = code
        self.message = message
        #: The field at fault, when there is one.
        self.param = param
        #: The id to quote to support (also the `X-Request-Id` header).
        self.request_id = request_id
        #: Every problem of a batch or import (`{index, field, code, message}` or `{row, column, code, message}`).
        self.errors = errors
        self.warnings = warnings
        #: The answer's headers, names in lower case.
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}

    def __str__(self) -> str:
        where = f" (param {self.param})" if self.param else ""
        return f"{self.status} {self.code}: {self.message}{where}"


class AuthenticationError(VoicenameError):
    """401: the API key is missing, revoked or wrong."""


class NotFoundError(VoicenameError):
    """404: no such object (also another account's)."""


class ConflictError(VoicenameError):
    """409: a conflict (e-mail taken, Idempotency-Key reused with another request...)."""


class InvalidRequestError(VoicenameError):
    """400, 413, 415, 422: the request or its file cannot be used as it is; `code` and `param` say why."""


class RateLimitError(VoicenameError):
    """429 after the client's own retries ran out."""

    @property
    def retry_after_seconds(self) -> float | None:
        """Seconds the API asked to wait (`Retry-After`), when it said so in seconds."""
        try:
            value = float(self.headers.get("retry-after", ""))
        except ValueError:
            return None
        return value if value >= 0 else None


class VoicenameConnectionError(Exception):
    """No answer: the connection failed or the request timed out (after the client's retries)."""


def _class_for(status: int) -> type[VoicenameError]:
    if status == 401:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 429:
        return RateLimitError
    if status in (400, 413, 415, 422):
        return InvalidRequestError
    return VoicenameError


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _details(value: object) -> list[dict[str, Any]] | None:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else None


def error_from_response(status: int, reason: str, headers: Mapping[str, str], body: bytes) -> VoicenameError:
    """The error for a non-2xx answer, from its envelope when the body is one."""
    parsed: object = None
    try:
        parsed = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        parsed = None
    envelope = parsed.get("error") if isinstance(parsed, dict) else None
    fields: dict[str, Any] = envelope if isinstance(envelope, dict) else {}
    lower = {k.lower(): v for k, v in headers.items()}
    fallback_message = body.decode("utf-8", "replace").strip() if body and parsed is None else ""
    return _class_for(status)(
        status=status,
        type=_text(fields.get("type")) or ("api_error" if status >= 500 else "invalid_request_error"),
        code=_text(fields.get("code")) or f"http_{status}",
        message=_text(fields.get("message")) or fallback_message or f"HTTP {status} {reason}".strip(),
        param=_text(fields.get("param")),
        request_id=_text(fields.get("request_id")) or lower.get("x-request-id"),
        errors=_details(fields.get("errors")),
        warnings=_details(fields.get("warnings")),
        headers=lower,
    )
