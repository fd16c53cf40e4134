"""What the tests share: the server they run against (from the environment the vitest test sets),
and small local HTTP servers standing in for a webhook receiver or a misbehaving API."""

from __future__ import annotations

import json
import os
import threading
import unittest
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from voicename import Voicename

#: Set by tests/python-client.test.ts: the test server's address, a fresh account's key, and a WAV of a spoken name.
BASE_URL = os.environ.get("VOICENAME_BASE_URL", "")
API_KEY = os.environ.get("VOICENAME_API_KEY", "")
WAV_PATH = os.environ.get("VOICENAME_TEST_WAV", "")


def server_client() -> Voicename:
    if not (BASE_URL and API_KEY and WAV_PATH):
        raise unittest.SkipTest("needs VOICENAME_BASE_URL, VOICENAME_API_KEY and VOICENAME_TEST_WAV (run by tests/python-client.test.ts)")
    return Voicename(API_KEY, base_url=BASE_URL)


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: object = None


class LocalServer:
    """An HTTP server on a free loopback port, in a thread; `respond` answers each request in turn."""

    def __init__(self, respond: Callable[[Received, int], Reply]) -> None:
        self.requests: list[Received] = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                received = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                with outer.arrived:
                    outer.requests.append(received)
                    index = len(outer.requests) - 1
                    outer.arrived.notify_all()
                reply = respond(received, index)
                body = b"" if reply.body is None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, format: str, *args: object) -> None:  # quiet test output
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def wait_for(self, count: int, timeout: float = 15.0) -> list[Received]:
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.requests)}")
            return list(self.requests)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
