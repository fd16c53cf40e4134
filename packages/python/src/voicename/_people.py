"""`/v1/collections` and their people: the resources of a roster."""

from __future__ import annotations

import builtins
from typing import Any, BinaryIO, Literal, cast
from urllib.parse import quote

from ._pagination import Page, Paginator
from ._transport import QueryValue, RequestOptions, Transport
from ._types import (
    Collection,
    CollectionCreateParams,
    CollectionUpdateParams,
    DeletedCollection,
    DeletedUser,
    ImportReport,
    PlayLinkSettings,
    ReviewParams,
    User,
    UserBatchResult,
    UserCreateParams,
    UserUpdateParams,
)
from ._uploads import FileSource, file_body, read_source

CHUNK = 64 * 1024


def segment(value: str) -> str:
    """A path parameter, escaped so an id can never change the route."""
    return quote(value, safe="")


def list_of(transport: Transport, path: str, query: dict[str, QueryValue], options: RequestOptions | None) -> Paginator[Any]:
    """A paginator over a list endpoint, starting at the caller's `cursor` if any."""

    def fetch(cursor: str | None) -> Page[Any]:
        return Page.of(transport.request("GET", path, query={**query, "cursor": cursor}, options=options).json())

    start = query.get("cursor")
    return Paginator(fetch, start if isinstance(start, str) else None)


def download(transport: Transport, path: str, query: dict[str, QueryValue], to: BinaryIO | None, options: RequestOptions | None) -> bytes:
    """A file answer: its bytes, or written to `to` (then `b""` is returned)."""
    body = transport.request("GET", path, query=query, options=options).body
    if to is None:
        return body
    for start in range(0, len(body), CHUNK):
        to.write(body[start : start + CHUNK])
    return b""


class Collections:
    """`/v1/collections`: groups of people whose names are recorded."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, params: CollectionCreateParams, *, options: RequestOptions | None = None) -> Collection:
        return cast(Collection, self._t.request("POST", "/v1/collections", json_body=params, options=options).json())

    def list(self, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None) -> Paginator[Collection]:
        """Newest first; archived collections are left out. Iterate it, or `.page()` for one page."""
        return list_of(self._t, "/v1/collections", dict(params or {}), options)

    def get(self, collection_id: str, *, options: RequestOptions | None = None) -> Collection:
        return cast(Collection, self._t.request("GET", f"/v1/collections/{segment(collection_id)}", options=options).json())

    def update(self, collection_id: str, params: CollectionUpdateParams, *, options: RequestOptions | None = None) -> Collection:
        path = f"/v1/collections/{segment(collection_id)}"
        return cast(Collection, self._t.request("PATCH", path, json_body=params, options=options).json())

    def archive(self, collection_id: str, *, erase: bool = False, options: RequestOptions | None = None) -> DeletedCollection:
        """Soft delete (restorable within the retention period); `erase=True` erases it for good at once."""
        query: dict[str, QueryValue] = {"erase": True} if erase else {}
        path = f"/v1/collections/{segment(collection_id)}"
        return cast(DeletedCollection, self._t.request("DELETE", path, query=query, options=options).json())

    def restore(self, collection_id: str, *, options: RequestOptions | None = None) -> Collection:
        path = f"/v1/collections/{segment(collection_id)}/restore"
        return cast(Collection, self._t.request("POST", path, options=options).json())

    def set_logo(
        self, collection_id: str, image: FileSource, *, content_type: str | None = None, options: RequestOptions | None = None
    ) -> Collection:
        """A PNG, JPEG or WebP logo (at most 1 MB), shown on the record and player pages and in mail."""
        body, kind = file_body(image, content_type)
        path = f"/v1/collections/{segment(collection_id)}/logo"
        return cast(Collection, self._t.request("PUT", path, body=body, content_type=kind, options=options).json())

    def remove_logo(self, collection_id: str, *, options: RequestOptions | None = None) -> Collection:
        path = f"/v1/collections/{segment(collection_id)}/logo"
        return cast(Collection, self._t.request("DELETE", path, options=options).json())

    def export(
        self,
        collection_id: str,
        format: Literal["csv", "zip"],
        *,
        separator: Literal["comma", "semicolon"] | None = None,
        bom: bool | None = None,
        to: BinaryIO | None = None,
        options: RequestOptions | None = None,
    ) -> bytes:
        """The people as CSV, or their recordings as a ZIP. `separator="semicolon"` suits Excel where
        the decimal mark is a comma; `bom` starts the CSV with a UTF-8 BOM. With `to`, the file is
        written there."""
        query: dict[str, QueryValue] = {"format": format, "separator": separator, "bom": bom}
        return download(self._t, f"/v1/collections/{segment(collection_id)}/export", query, to, options)

    def get_play_link_settings(self, collection_id: str, *, options: RequestOptions | None = None) -> PlayLinkSettings:
        path = f"/v1/collections/{segment(collection_id)}/play-link-settings"
        return cast(PlayLinkSettings, self._t.request("GET", path, options=options).json())

    def update_play_link_settings(
        self, collection_id: str, params: PlayLinkSettings, *, options: RequestOptions | None = None
    ) -> PlayLinkSettings:
        path = f"/v1/collections/{segment(collection_id)}/play-link-settings"
        return cast(PlayLinkSettings, self._t.request("PATCH", path, json_body=params, options=options).json())


class Users:
    """`/v1/collections/{collection_id}/users`: the people of a collection."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    @staticmethod
    def _path(collection_id: str, user_id: str | None = None, tail: str = "") -> str:
        base = f"/v1/collections/{segment(collection_id)}/users"
        return (f"{base}/{segment(user_id)}" if user_id is not None else base) + tail

    def create(self, collection_id: str, params: UserCreateParams, *, options: RequestOptions | None = None) -> User:
        return cast(User, self._t.request("POST", self._path(collection_id), json_body=params, options=options).json())

    def batch_create(
        self,
        collection_id: str,
        users: builtins.list[UserCreateParams] | None = None,
        *,
        csv: str | None = None,
        options: RequestOptions | None = None,
    ) -> UserBatchResult:
        """Up to 1,000 people at once, all or nothing: a list of people, or `csv=` text with a header
        row `email,first_name,...`. On any problem nothing is created and the error's `errors` lists each one."""
        path = self._path(collection_id, tail="/batch")
        if csv is not None:
            answer = self._t.request("POST", path, body=csv.encode("utf-8"), content_type="text/csv", options=options)
        else:
            answer = self._t.request("POST", path, json_body={"users": users or []}, options=options)
        return cast(UserBatchResult, answer.json())

    def import_csv(
        self,
        collection_id: str,
        csv: str | FileSource,
        *,
        mode: Literal["all_or_nothing", "valid_rows"] | None = None,
        dry_run: bool | None = None,
        params: dict[str, QueryValue] | None = None,
        options: RequestOptions | None = None,
    ) -> ImportReport:
        """A spreadsheet's CSV (up to 10,000 people): updates people already there (by external_id,
        else e-mail), creates the others, and reports every row's problems. `csv` is the CSV text
        (`str`), or a `pathlib.Path`, bytes or a binary file. `mode="valid_rows"` writes the good rows
        even when others are wrong; `dry_run=True` writes nothing."""
        data = csv.encode("utf-8") if isinstance(csv, str) else read_source(csv)[0]
        query: dict[str, QueryValue] = {**(params or {}), "mode": mode, "dry_run": dry_run}
        path = self._path(collection_id, tail="/import")
        answer = self._t.request("POST", path, query=query, body=data, content_type="text/csv", options=options)
        return cast(ImportReport, answer.json())

    def list(
        self, collection_id: str, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None
    ) -> Paginator[User]:
        return list_of(self._t, self._path(collection_id), dict(params or {}), options)

    def get(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> User:
        return cast(User, self._t.request("GET", self._path(collection_id, user_id), options=options).json())

    def update(self, collection_id: str, user_id: str, params: UserUpdateParams, *, options: RequestOptions | None = None) -> User:
        answer = self._t.request("PATCH", self._path(collection_id, user_id), json_body=params, options=options)
        return cast(User, answer.json())

    def delete(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> DeletedUser:
        """Deletes the person with their recording, play link and audio files."""
        return cast(DeletedUser, self._t.request("DELETE", self._path(collection_id, user_id), options=options).json())

    def record_link(self, collection_id: str, user_id: str, *, options: RequestOptions | None = None) -> User:
        """Issues a new `record_url`; the old one stops working at once."""
        return cast(User, self._t.request("POST", self._path(collection_id, user_id, "/record-link"), options=options).json())

    def review(self, collection_id: str, user_id: str, params: ReviewParams, *, options: RequestOptions | None = None) -> User:
        """`{"decision": "approve"}`, or `{"decision": "request_rerecord", "note": ...}`."""
        path = self._path(collection_id, user_id, "/review")
        return cast(User, self._t.request("POST", path, json_body=params, options=options).json())

    def export(self, collection_id: str, user_id: str, *, to: BinaryIO | None = None, options: RequestOptions | None = None) -> bytes:
        """One person's data as a ZIP (`person.json`, `recording.mp3`), for subject-access requests."""
        return download(self._t, self._path(collection_id, user_id, "/export"), {}, to, options)
