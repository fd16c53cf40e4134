"""Recordings and the play links that publish them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ._people import segment
from ._transport import RequestOptions, Transport
from ._types import DeletedRecording, PlayLink, PlayLinkBatchItem
from ._uploads import FileSource, file_body

#: The API resolves at most this many user ids per batch request.
MAX_BATCH_USER_IDS = 100


def _person(collection_id: str, user_id: str, tail: str) -> str:
    return f"/v1/collections/{segment(collection_id)}/users/{segment(user_id)}{tail}"


class Recordings:
    """`/v1/collections/{collection_id}/users/{user_id}/recording`: a person's recorded name."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def upload(
        self,
        collection_id: str,
        user_id: str,
        audio: FileSource,
        *,
        content_type: str | None = None,
        options: RequestOptions | None = None,
    ) -> PlayLink:
        """Uploads (or replaces) the recording: WebM, Ogg, WAV, MP3 or M4A, at most 5 MB, from a path
        (`str` or `pathlib.Path`), bytes or a binary file. The API trims and normalises it and answers
        the play link once published. `content_type` defaults to the format the bytes start with
        (else the file's extension, else `application/octet-stream`): the API reads the bytes either way."""
        body, kind = file_body(audio, content_type)
        path = _person(collection_id, user_id, "/recording")
        return cast(PlayLink, self._t.request("PUT", path, body=body, content_type=kind, options=options).json())

    def delete(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> DeletedRecording:
        path = _person(collection_id, user_id, "/recording")
        return cast(DeletedRecording, self._t.request("DELETE", path, options=options).json())


class PlayLinks:
    """Play links: the public player page, `.mp3`, embed and metadata URLs of a recorded name."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def get(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> PlayLink:
        """Raises `NotFoundError` with code `recording_missing` while the person has not recorded."""
        return cast(PlayLink, self._t.request("GET", _person(collection_id, user_id, "/play-link"), options=options).json())

    def rotate(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> PlayLink:
        """A new token: the old URLs stop working at once."""
        path = _person(collection_id, user_id, "/play-link/rotate")
        return cast(PlayLink, self._t.request("POST", path, options=options).json())

    def batch(
        self, collection_id: str, user_ids: Sequence[str], *, options: RequestOptions | None = None
    ) -> list[PlayLinkBatchItem]:
        """One item per id, in order (`has_recording` false and `play_link` None for people without
        one); up to 100 ids."""
        if isinstance(user_ids, str):
            raise TypeError("play_links.batch takes a list of user ids, not one string.")
        if len(user_ids) > MAX_BATCH_USER_IDS:
            raise ValueError(f"play_links.batch takes at most {MAX_BATCH_USER_IDS} user ids; got {len(user_ids)}.")
        query = {"collection_id": collection_id, "user_ids": ",".join(user_ids)}
        answer = self._t.request("GET", "/v1/play-links/batch", query=query, options=options).json()
        return cast("list[PlayLinkBatchItem]", answer["data"])
