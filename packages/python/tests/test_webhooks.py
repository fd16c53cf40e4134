"""verify_webhook on the signing test vector of docs/webhooks.md: both schemes, a rotation, and
every way a delivery is refused (a changed byte, another secret, a stale timestamp, no headers)."""

from __future__ import annotations

import unittest

from voicename import WebhookVerificationError, verify_webhook

BODY = (
    '{"event":"recording.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{"collection_id":"col_123",'
    '"user_id":"usr_456","email":"ada@example.com","first_name":"Ada","last_name":"Lovelace",'
    '"play_link":"https://example.com/p/abc","recorded_at":"2026-01-15T11:59:58.000Z"}}'
).encode()
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
OTHER_SECRET = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
SERVICE = {"X-Service-Signature": "5bcb437ce780015e7a79d7dc8eec72563b366be375a580c0604ba14350e21e1b"}
STANDARD = {
    "webhook-id": "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    "webhook-timestamp": "1768478400",
    "webhook-signature": "v1,aJNZUH8AtOmT7+JRo8ed+9BfYpcbb3lB2it6/tpVL+w=",
}
NOW = 1768478400


class VerifyWebhookTest(unittest.TestCase):
    def test_the_documented_vector_verifies_with_both_schemes_together_and_alone(self) -> None:
        verified = verify_webhook(BODY, {**SERVICE, **STANDARD}, SECRET, now=NOW)
        self.assertEqual(verified.id, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W")
        self.assertEqual(verified.timestamp, NOW)
        self.assertEqual(verified.event["data"]["play_link"], "https://example.com/p/abc")
        self.assertEqual(verify_webhook(BODY, STANDARD, SECRET, now=NOW).event["event"], "recording.completed")
        self.assertIsNone(verify_webhook(BODY.decode(), SERVICE, SECRET).id)
        # Header names in any case, as pairs (http.server's headers.items()).
        pairs = [(name.upper(), value) for name, value in STANDARD.items()]
        self.assertEqual(verify_webhook(BODY, pairs, SECRET, now=NOW).timestamp, NOW)

    def test_a_changed_byte_or_another_secret_is_refused_by_each_scheme(self) -> None:
        changed = BODY.replace(b"Ada", b"Eve")
        for headers in (SERVICE, STANDARD, {**SERVICE, **STANDARD}):
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(changed, headers, SECRET, now=NOW)
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(BODY, headers, OTHER_SECRET, now=NOW)

    def test_every_present_scheme_must_verify(self) -> None:
        wrong_hex = {"X-Service-Signature": "0" * 64}
        with self.assertRaisesRegex(WebhookVerificationError, "X-Service-Signature"):
            verify_webhook(BODY, {**wrong_hex, **STANDARD}, SECRET, now=NOW)
        wrong_standard = {**STANDARD, "webhook-signature": "v1,AAAA"}
        with self.assertRaisesRegex(WebhookVerificationError, "webhook-signature"):
            verify_webhook(BODY, {**SERVICE, **wrong_standard}, SECRET, now=NOW)

    def test_timestamps_outside_the_tolerance_are_refused(self) -> None:
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(BODY, STANDARD, SECRET, now=NOW + 301)
        with self.assertRaisesRegex(WebhookVerificationError, "too old or too new"):
            verify_webhook(BODY, STANDARD, SECRET, now=NOW - 301)
        self.assertEqual(verify_webhook(BODY, STANDARD, SECRET, now=NOW + 3600, tolerance_seconds=3600).timestamp, NOW)
        with self.assertRaisesRegex(WebhookVerificationError, "Invalid webhook-timestamp"):
            verify_webhook(BODY, {**STANDARD, "webhook-timestamp": "soon"}, SECRET, now=NOW)

    def test_missing_or_incomplete_headers(self) -> None:
        with self.assertRaisesRegex(WebhookVerificationError, "No signature headers"):
            verify_webhook(BODY, {}, SECRET)
        with self.assertRaisesRegex(WebhookVerificationError, "Incomplete"):
            verify_webhook(BODY, {"webhook-id": "msg_1"}, SECRET)
        with self.assertRaisesRegex(WebhookVerificationError, "Missing webhook-timestamp"):
            verify_webhook(BODY, SERVICE, SECRET, require_timestamp=True)
        with self.assertRaisesRegex(WebhookVerificationError, "No webhook secret"):
            verify_webhook(BODY, SERVICE, "")

    def test_during_a_rotation_either_secret_verifies(self) -> None:
        self.assertEqual(verify_webhook(BODY, STANDARD, [OTHER_SECRET, SECRET], now=NOW).id, STANDARD["webhook-id"])
        rotated = {"X-Service-Signature": "1" * 64, "X-Service-Signature-Next": SERVICE["X-Service-Signature"]}
        self.assertEqual(verify_webhook(BODY, rotated, [OTHER_SECRET, SECRET]).event["event"], "recording.completed")


if __name__ == "__main__":
    unittest.main()
