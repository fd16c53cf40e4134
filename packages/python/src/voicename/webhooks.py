"""Verifies a voicename webhook delivery on the receiving side (standard library only).

    event = verify_webhook(raw_body, request_headers, os.environ["VOICENAME_WEBHOOK_SECRET"]).event

Pass the raw body bytes exactly as received (never re-serialised JSON). Checks:
- the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) when
  present: a `v1,` signature over `id.timestamp.body` keyed with the base64-decoded part of the
  secret after `whsec_`, and the timestamp within `tolerance_seconds` (replay protection);
- `X-Service-Signature` (or `X-Service-Signature-Next` during a secret rotation) when present: hex
  HMAC-SHA256 of the body keyed with the secret string's UTF-8 bytes.
At least one scheme must be present; every present scheme must verify. Signatures are compared in
constant time. Raises `WebhookVerificationError`; returns the parsed event.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

#: A mapping of header names to values (any case), or the (name, value) pairs of
#: `http.server`'s `self.headers.items()`, a WSGI/ASGI framework's headers, etc.
Headers = Union[Mapping[str, str], Iterable[tuple[str, str]]]

DEFAULT_TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """The delivery is not signed with the secret (or is too old, or is not JSON)."""


@dataclass(frozen=True)
class VerifiedWebhook:
    #: `webhook-id`: the same on every retry of one delivery; use it to drop duplicates.
    id: str | None
    timestamp: int | None
    #: `{"event": ..., "timestamp": ..., "data": {...}}`
    event: dict[str, Any]


def _header_lookup(headers: Headers) -> dict[str, str]:
    items = headers.items() if isinstance(headers, Mapping) else headers
    found: dict[str, str] = {}
    for name, value in items:
        found.setdefault(str(name).lower(), str(value))
    return found


def _standard_key(secret: str) -> bytes:
    encoded = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(encoded)
    except (binascii.Error, ValueError):
        return b""


def _any_equal(given: Sequence[bytes], expected: Sequence[bytes]) -> bool:
    # Every pair is compared (no early exit), each in constant time.
    matched = False
    for signature in given:
        for candidate in expected:
            matched = hmac.compare_digest(signature, candidate) or matched
    return matched


def verify_webhook(
    payload: bytes | str,
    headers: Headers,
    secret: str | Sequence[str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    require_timestamp: bool = False,
    now: float | None = None,
) -> VerifiedWebhook:
    """Checks a delivery's signatures; `secret` may list several during a rotation."""
    secrets = [s for s in ([secret] if isinstance(secret, str) else list(secret)) if s]
    if not secrets:
        raise WebhookVerificationError("No webhook secret configured.")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    found = _header_lookup(headers)
    message_id = found.get("webhook-id")
    timestamp_header = found.get("webhook-timestamp")
    signature_header = found.get("webhook-signature")
    service_headers = [h for h in (found.get("x-service-signature"), found.get("x-service-signature-next")) if h is not None]
    has_standard = message_id is not None or timestamp_header is not None or signature_header is not None
    if not has_standard and not service_headers:
        raise WebhookVerificationError("No signature headers.")
    if not has_standard and require_timestamp:
        raise WebhookVerificationError("Missing webhook-timestamp headers.")

    timestamp: int | None = None
    if has_standard:
        if not message_id or not timestamp_header or not signature_header:
            raise WebhookVerificationError("Incomplete webhook-* headers.")
        if not re.fullmatch(r"\d{1,12}", timestamp_header):
            raise WebhookVerificationError("Invalid webhook-timestamp.")
        timestamp = int(timestamp_header)
        current = int(time.time() if now is None else now)
        if abs(current - timestamp) > tolerance_seconds:
            raise WebhookVerificationError("webhook-timestamp is too old or too new.")
        signed = f"{message_id}.{timestamp_header}.".encode() + body
        expected = [hmac.new(_standard_key(s), signed, hashlib.sha256).digest() for s in secrets]
        given: list[bytes] = []
        for part in signature_header.split(" "):
            if part.startswith("v1,"):
                try:
                    given.append(base64.b64decode(part[3:]))
                except (binascii.Error, ValueError):
                    continue
        if not _any_equal(given, expected):
            raise WebhookVerificationError("No matching webhook-signature.")

    if service_headers:
        expected = [hmac.new(s.encode("utf-8"), body, hashlib.sha256).digest() for s in secrets]
        given = [bytes.fromhex(h) for h in service_headers if re.fullmatch(r"[0-9a-f]{64}", h)]
        if not _any_equal(given, expected):
            raise WebhookVerificationError("No matching X-Service-Signature.")

    try:
        event = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise WebhookVerificationError("Body is not JSON.") from error
    if not isinstance(event, dict):
        raise WebhookVerificationError("Body is not a JSON object.")
    return VerifiedWebhook(id=message_id, timestamp=timestamp, event=event)
