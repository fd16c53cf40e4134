"""The client: one object holding the key, the address and the retry settings, with a namespace per resource."""

from __future__ import annotations

import platform

from ._notifications import Erasures, Invitations, Webhooks
from ._people import Collections, Users
from ._recordings import PlayLinks, Recordings
from ._transport import Transport

DEFAULT_BASE_URL = "http://localhost:3000"
VERSION = "0.1.0"


class Voicename:
    """The voicename API client. Resource methods return the answer's JSON (TypedDicts) and raise
    `VoicenameError` (or a subclass) for an error answer, `VoicenameConnectionError` for none.

    api_key: an API key, `vn_...`, sent as `Authorization: Bearer ...`.
    base_url: the service's address, without `/v1`.
    max_retries: retries after the first attempt, for answers and failures that are safe to retry.
    timeout: seconds each attempt may wait on the network.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        max_retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        if not api_key:
            raise ValueError("Voicename: api_key is required.")
        self.transport = Transport(
            api_key=api_key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
            user_agent=f"voicename-python/{VERSION} Python/{platform.python_version()}",
        )
        self.collections = Collections(self.transport)
        self.users = Users(self.transport)
        self.recordings = Recordings(self.transport)
        self.play_links = PlayLinks(self.transport)
        self.webhooks = Webhooks(self.transport)
        self.invitations = Invitations(self.transport)
        self.erasures = Erasures(self.transport)
