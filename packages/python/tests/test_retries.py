"""Retries against a local server that answers what the real service cannot be told to (429, 5xx
on demand): how often the client asks again, how long it waits, and that a POST keeps its key."""

from __future__ import annotations

import email.utils
import time
import unittest

from helpers import LocalServer, Received, Reply

from voicename import (
    ConflictError,
    InvalidRequestError,
    RateLimitError,
    Voicename,
    VoicenameConnectionError,
    VoicenameError,
)

COLLECTION = {"id": "col_1", "name": "Retried"}


class RetryTest(unittest.TestCase):
    def serve(self, *replies: Reply) -> LocalServer:
        """Answers the replies in order, then the last one again."""
        server = LocalServer(lambda _request, index: replies[min(index, len(replies) - 1)])
        self.addCleanup(server.close)
        return server

    def test_429_waits_retry_after_seconds_and_reuses_the_idempotency_key(self) -> None:
        server = self.serve(
            Reply(429, {"Retry-After": "1"}, {"error": {"type": "rate_limit_error", "code": "rate_limited", "message": "Slow down."}}),
            Reply(201, {}, COLLECTION),
        )
        client = Voicename("vn_test", base_url=server.url)
        started = time.monotonic()
        created = client.collections.create({"name": "Retried"})
        elapsed = time.monotonic() - started
        self.assertEqual(created["id"], "col_1")
        self.assertEqual(len(server.requests), 2)
        keys = [request.headers.get("idempotency-key") for request in server.requests]
        self.assertIsNotNone(keys[0])
        self.assertEqual(keys[0], keys[1])
        self.assertGreaterEqual(elapsed, 0.95)
        self.assertEqual(server.requests[0].headers["authorization"], "Bearer vn_test")
        self.assertEqual(server.requests[1].body, b'{"name": "Retried"}')

    def test_each_post_gets_its_own_key_and_a_callers_key_is_kept(self) -> None:
        server = self.serve(Reply(201, {}, COLLECTION))
        client = Voicename("vn_test", base_url=server.url)
        client.collections.create({"name": "A"})
        client.collections.create({"name": "B"})
        client.collections.create({"name": "C"}, options={"idempotency_key": "class-of-2027"})
        keys = [request.headers.get("idempotency-key") for request in server.requests]
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2], "class-of-2027")
        client.collections.get("col_1")
        self.assertNotIn("idempotency-key", server.requests[3].headers)

    def test_retry_after_as_an_http_date(self) -> None:
        soon = email.utils.formatdate(time.time() + 1, usegmt=True)
        server = self.serve(Reply(503, {"Retry-After": soon}, None), Reply(200, {}, COLLECTION))
        client = Voicename("vn_test", base_url=server.url)
        waits: list[float] = []
        client.transport.sleep = waits.append
        self.assertEqual(client.collections.get("col_1")["name"], "Retried")
        self.assertEqual(len(server.requests), 2)
        self.assertEqual(len(waits), 1)
        self.assertTrue(0 <= waits[0] <= 2, waits)

    def test_5xx_backs_off_without_retry_after_and_gives_up_after_max_retries(self) -> None:
        server = self.serve(Reply(500, {"X-Request-Id": "req_500"}, {"error": {"type": "api_error", "code": "internal", "message": "Boom."}}))
        client = Voicename("vn_test", base_url=server.url, max_retries=3)
        waits: list[float] = []
        client.transport.sleep = waits.append
        with self.assertRaises(VoicenameError) as caught:
            client.collections.get("col_1")
        self.assertEqual(len(server.requests), 4)
        self.assertEqual((caught.exception.status, caught.exception.code), (500, "internal"))
        self.assertEqual(caught.exception.request_id, "req_500")
        self.assertEqual(len(waits), 3)
        for attempt, wait in enumerate(waits, start=1):
            ceiling = min(8.0, 0.5 * 2 ** (attempt - 1))
            self.assertTrue(ceiling / 2 <= wait <= ceiling, (attempt, wait))

    def test_patch_is_not_retried_after_a_5xx_but_is_after_a_429(self) -> None:
        server = self.serve(Reply(502, {}, None))
        client = Voicename("vn_test", base_url=server.url)
        client.transport.sleep = lambda _seconds: None
        with self.assertRaises(VoicenameError):
            client.collections.update("col_1", {"name": "New"})
        self.assertEqual(len(server.requests), 1)

        limited = self.serve(Reply(429, {"Retry-After": "0"}, None), Reply(200, {}, COLLECTION))
        client = Voicename("vn_test", base_url=limited.url)
        client.collections.update("col_1", {"name": "New"})
        self.assertEqual(len(limited.requests), 2)

    def test_rate_limit_error_when_retries_run_out(self) -> None:
        envelope = {"error": {"type": "rate_limit_error", "code": "rate_limited", "message": "Slow down.", "request_id": "req_1"}}
        server = self.serve(Reply(429, {"Retry-After": "0"}, envelope))
        client = Voicename("vn_test", base_url=server.url, max_retries=1)
        with self.assertRaises(RateLimitError) as caught:
            client.collections.list().page()
        self.assertEqual(len(server.requests), 2)
        self.assertEqual(caught.exception.retry_after_seconds, 0)
        self.assertEqual(caught.exception.type, "rate_limit_error")
        self.assertEqual(caught.exception.request_id, "req_1")

    def test_a_retry_after_beyond_a_minute_is_not_waited_for(self) -> None:
        server = self.serve(Reply(429, {"Retry-After": "3600"}, None))
        client = Voicename("vn_test", base_url=server.url)
        with self.assertRaises(RateLimitError) as caught:
            client.collections.get("col_1")
        self.assertEqual(len(server.requests), 1)
        self.assertEqual(caught.exception.retry_after_seconds, 3600)

    def test_409_in_progress_is_retried_on_post_and_a_plain_409_is_not(self) -> None:
        server = self.serve(Reply(409, {"Retry-After": "0"}, None), Reply(201, {}, COLLECTION))
        Voicename("vn_test", base_url=server.url).collections.create({"name": "A"})
        self.assertEqual(len(server.requests), 2)
        taken = {"error": {"type": "invalid_request_error", "code": "email_taken", "message": "Taken.", "param": "email"}}
        plain = self.serve(Reply(409, {}, taken))
        with self.assertRaises(ConflictError) as caught:
            Voicename("vn_test", base_url=plain.url).users.create("col_1", {"email": "a@example.com", "first_name": "A"})
        self.assertEqual(len(plain.requests), 1)
        self.assertEqual(caught.exception.param, "email")

    def test_non_json_error_bodies_still_give_a_typed_error(self) -> None:
        server = self.serve(Reply(415, {}, "not an envelope"))
        with self.assertRaises(InvalidRequestError) as caught:
            Voicename("vn_test", base_url=server.url).recordings.upload("c", "u", b"abc")
        self.assertEqual(caught.exception.code, "http_415")

    def test_no_answer_is_a_connection_error_after_retries(self) -> None:
        server = self.serve(Reply())
        url = server.url
        server.close()
        client = Voicename("vn_test", base_url=url, max_retries=2)
        waits: list[float] = []
        client.transport.sleep = waits.append
        with self.assertRaises(VoicenameConnectionError):
            client.collections.get("col_1")
        self.assertEqual(len(waits), 2)

    def test_uploads_send_the_bytes_with_their_sniffed_content_type(self) -> None:
        def echo(_request: Received, _index: int) -> Reply:
            return Reply(200, {}, {"play_link": "x"})

        server = LocalServer(echo)
        self.addCleanup(server.close)
        client = Voicename("vn_test", base_url=server.url)
        wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
        client.recordings.upload("col 1", "usr/2", wav)
        client.recordings.upload("c", "u", b"\x1a\x45\xdf\xa3rest")
        client.recordings.upload("c", "u", b"ID3\x04rest")
        client.recordings.upload("c", "u", b"unknown", content_type="audio/ogg")
        first = server.requests[0]
        self.assertEqual(first.path, "/v1/collections/col%201/users/usr%2F2/recording")
        self.assertEqual(first.method, "PUT")
        self.assertEqual(first.body, wav)
        types = [request.headers["content-type"] for request in server.requests]
        self.assertEqual(types, ["audio/wav", "audio/webm", "audio/mpeg", "audio/ogg"])


if __name__ == "__main__":
    unittest.main()
