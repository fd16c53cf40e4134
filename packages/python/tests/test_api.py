"""The client against the real service (started by tests/python-client.test.ts): collections and
people, uploads from a path and from bytes, play links one and batch, cursors, typed errors, and a
real signed webhook delivery to a local receiver, verified with both schemes."""

from __future__ import annotations

import io
import pathlib
import time
import unittest
import uuid

from helpers import WAV_PATH, LocalServer, Reply, server_client

from voicename import (
    AuthenticationError,
    InvalidRequestError,
    NotFoundError,
    Voicename,
    VoicenameError,
    WebhookVerificationError,
    verify_webhook,
)


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:8]}"


class ServerTest(unittest.TestCase):
    client: Voicename

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = server_client()

    def test_collections_create_get_update_list_archive_restore(self) -> None:
        name = unique("Class of 2027")
        created = self.client.collections.create({"name": name, "description": "Graduation"})
        self.assertEqual((created["name"], created["member_count"]), (name, 0))
        self.assertEqual(self.client.collections.get(created["id"])["description"], "Graduation")
        updated = self.client.collections.update(created["id"], {"description": "Ceremony"})
        self.assertEqual(updated["description"], "Ceremony")
        self.assertIn(created["id"], [c["id"] for c in self.client.collections.list()])
        archived = self.client.collections.archive(created["id"])
        self.assertEqual((archived["deleted"], archived["id"]), (True, created["id"]))
        self.assertNotIn(created["id"], [c["id"] for c in self.client.collections.list()])
        self.assertEqual(self.client.collections.restore(created["id"])["id"], created["id"])

    def test_users_create_get_update_batch_import_delete_and_export(self) -> None:
        collection = self.client.collections.create({"name": unique("People")})
        cid = collection["id"]
        ada = self.client.users.create(cid, {"email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace"})
        self.assertTrue(ada["record_url"].startswith("http"))
        self.assertEqual(self.client.users.get(cid, ada["id"])["last_name"], "Lovelace")
        self.assertEqual(self.client.users.update(cid, ada["id"], {"pronouns": "she/her"})["pronouns"], "she/her")
        batch = self.client.users.batch_create(cid, [{"email": "grace@example.com", "first_name": "Grace"}])
        self.assertEqual([u["first_name"] for u in batch["data"]], ["Grace"])
        from_csv = self.client.users.batch_create(cid, csv="email,first_name\nalan@example.com,Alan\n")
        self.assertEqual([u["first_name"] for u in from_csv["data"]], ["Alan"])
        report = self.client.users.import_csv(cid, "Email,First Name,Surname\nsiobhan@example.com,Siobhán,Ní Bhriain\n")
        self.assertEqual((report["rows"], report["created"], report["failed"]), (1, 1, 0))
        emails = sorted(u["email"] for u in self.client.users.list(cid))
        self.assertEqual(emails, ["ada@example.com", "alan@example.com", "grace@example.com", "siobhan@example.com"])
        csv = self.client.collections.export(cid, "csv").decode("utf-8")
        self.assertIn("Ní Bhriain", csv)
        self.assertEqual(self.client.users.delete(cid, ada["id"]), {"deleted": True, "id": ada["id"]})
        with self.assertRaises(NotFoundError):
            self.client.users.get(cid, ada["id"])

    def test_uploads_from_a_path_bytes_and_a_file_then_play_links_one_and_batch(self) -> None:
        collection = self.client.collections.create({"name": unique("Recordings")})
        cid = collection["id"]
        people = self.client.users.batch_create(
            cid,
            [
                {"email": "a@example.com", "first_name": "Ana"},
                {"email": "b@example.com", "first_name": "Ben"},
                {"email": "c@example.com", "first_name": "Cy"},
                {"email": "d@example.com", "first_name": "Dee"},
            ],
        )["data"]
        ana, ben, cy, dee = (person["id"] for person in people)
        from_path = self.client.recordings.upload(cid, ana, WAV_PATH)
        self.assertEqual(from_path["status"], "active")
        self.assertTrue(from_path["play_link"].startswith(f"{self.client.transport.base_url}/p/"))
        wav = pathlib.Path(WAV_PATH).read_bytes()
        self.client.recordings.upload(cid, ben, wav)
        self.client.recordings.upload(cid, cy, io.BytesIO(wav), content_type="audio/wav")
        self.client.recordings.upload(cid, dee, pathlib.Path(WAV_PATH))

        self.assertEqual(self.client.play_links.get(cid, ana)["play_link"], from_path["play_link"])
        self.assertEqual(self.client.recordings.delete(cid, dee), {"deleted": True, "user_id": dee})
        with self.assertRaises(NotFoundError) as missing:
            self.client.play_links.get(cid, dee)
        self.assertEqual(missing.exception.code, "recording_missing")

        batch = self.client.play_links.batch(cid, [ana, ben, cy, dee, "not-a-user"])
        self.assertEqual(
            [(item["user_id"], item["has_recording"]) for item in batch],
            [(ana, True), (ben, True), (cy, True), (dee, False), ("not-a-user", False)],
        )
        self.assertEqual(batch[0]["play_link"], from_path["play_link"])
        self.assertIsNone(batch[3]["play_link"])
        with self.assertRaises(ValueError):
            self.client.play_links.batch(cid, [f"u{i}" for i in range(101)])
        self.assertEqual(self.client.collections.get(cid)["recorded_count"], 3)

    def test_cursor_iteration_follows_next_cursor_across_pages(self) -> None:
        collection = self.client.collections.create({"name": unique("Pages")})
        cid = collection["id"]
        self.client.users.batch_create(cid, [{"email": f"p{n}@example.com", "first_name": f"P{n}"} for n in range(5)])
        first = self.client.users.list(cid, {"limit": 2}).page()
        self.assertEqual(len(first.data), 2)
        self.assertTrue(first.has_more)
        self.assertIsInstance(first.next_cursor, str)
        self.assertEqual([len(page.data) for page in self.client.users.list(cid, {"limit": 2}).pages()], [2, 2, 1])
        emails = sorted(user["email"] for user in self.client.users.list(cid, {"limit": 2}))
        self.assertEqual(emails, [f"p{n}@example.com" for n in range(5)])
        rest = self.client.users.list(cid, {"limit": 2, "cursor": first.next_cursor}).to_list()
        self.assertEqual(len(rest), 3)

    def test_errors_are_typed_with_the_envelope_fields(self) -> None:
        with self.assertRaises(NotFoundError) as missing:
            self.client.collections.get("6f1c1c1e-2b2a-4c1e-9d57-0c1b8f0e2a11")
        error = missing.exception
        self.assertIsInstance(error, VoicenameError)
        self.assertEqual((error.status, error.type, error.code), (404, "invalid_request_error", "resource_missing"))
        self.assertTrue(error.request_id)
        self.assertEqual(error.request_id, error.headers.get("x-request-id"))

        with self.assertRaises(InvalidRequestError) as invalid:
            self.client.collections.create({"name": "x", "colour": "red"})  # type: ignore[typeddict-unknown-key]
        self.assertEqual((invalid.exception.status, invalid.exception.code, invalid.exception.param), (400, "parameter_unknown", "colour"))

        collection = self.client.collections.create({"name": unique("Bad rows")})
        with self.assertRaises(InvalidRequestError) as refused:
            self.client.users.batch_create(
                collection["id"], [{"email": "not-an-email", "first_name": "Zed"}, {"email": "z@example.com", "first_name": ""}]
            )
        self.assertGreaterEqual(len(refused.exception.errors or []), 2)

        stranger = Voicename("vn_not_a_real_key", base_url=self.client.transport.base_url)
        with self.assertRaises(AuthenticationError) as unauthorised:
            stranger.collections.list().page()
        self.assertEqual((unauthorised.exception.status, unauthorised.exception.code), (401, "invalid_api_key"))

    def test_a_real_delivery_verifies_with_both_schemes_and_is_refused_when_tampered_or_stale(self) -> None:
        receiver = LocalServer(lambda _request, _index: Reply(200))
        self.addCleanup(receiver.close)
        webhook = self.client.webhooks.create({"url": f"{receiver.url}/hooks", "events": ["recording.completed"]})
        self.assertTrue(webhook["secret"].startswith("whsec_"))
        self.assertEqual(self.client.webhooks.get(webhook["id"])["url"], f"{receiver.url}/hooks")
        self.assertIn(webhook["id"], [w["id"] for w in self.client.webhooks.list()])
        delivery = self.client.webhooks.test(webhook["id"])
        self.assertEqual(delivery["status"], "succeeded")
        received = receiver.wait_for(1)[0]

        headers, body, secret = received.headers, received.body, webhook["secret"]
        self.assertIn("webhook-signature", headers)
        self.assertIn("x-service-signature", headers)
        verified = verify_webhook(body, headers, secret)
        self.assertEqual(verified.event["event"], "webhook.test")
        self.assertEqual(verified.id, headers["webhook-id"])
        standard_only = {k: v for k, v in headers.items() if k.startswith("webhook-")}
        service_only = {"x-service-signature": headers["x-service-signature"]}
        self.assertEqual(verify_webhook(body, standard_only, secret).event["event"], "webhook.test")
        self.assertEqual(verify_webhook(body, service_only, secret).event["event"], "webhook.test")

        tampered = body.replace(b"webhook.test", b"webhook.tost")
        for scheme in (headers, standard_only, service_only):
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(tampered, scheme, secret)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(body, headers, "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(body, standard_only, secret, now=time.time() + 600)

        self.assertIn(delivery["id"], [d["id"] for d in self.client.webhooks.deliveries(webhook["id"])])
        replayed = self.client.webhooks.replay_message(webhook["id"], delivery["id"])
        self.assertEqual((replayed["id"], replayed["attempt_count"]), (delivery["id"], 2))
        self.assertEqual(receiver.wait_for(2)[1].headers["webhook-id"], delivery["id"])
        self.assertEqual([m["id"] for m in self.client.webhooks.messages(webhook["id"], {"status": "succeeded"})], [delivery["id"]])
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        # A test event is never retried, so never recovered: nothing failed to queue again.
        self.assertEqual(self.client.webhooks.recover(webhook["id"], {"since": since}), {"queued": 0})
        updated = self.client.webhooks.update(webhook["id"], {"description": "Python receiver"})
        self.assertEqual(updated["description"], "Python receiver")
        rotated = self.client.webhooks.rotate_secret(webhook["id"])
        self.assertNotEqual(rotated["secret"], secret)
        self.assertEqual(self.client.webhooks.delete(webhook["id"]), {"deleted": True, "id": webhook["id"]})


if __name__ == "__main__":
    unittest.main()
