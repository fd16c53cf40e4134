"""The API's objects as TypedDicts: the JSON answers, as they come (read them as dicts).

They follow the OpenAPI document's schemas (`/openapi.json`); fields not spelled out here (nested
objects used rarely) are plain dicts.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

JsonObject = dict[str, Any]


class Collection(TypedDict):
    id: str
    name: str
    description: str | None
    custom_fields: list[JsonObject]
    member_count: int
    recorded_count: int
    review_required: bool
    deadline: str | None
    language: str
    self_edit: bool
    branding: JsonObject
    invitation_settings: JsonObject
    created_at: str
    updated_at: str


class CollectionCreateParams(TypedDict, total=False):
    name: str  # required by the API
    description: str | None
    custom_fields: list[JsonObject]
    review_required: bool
    deadline: str | None
    language: str
    self_edit: bool
    branding: JsonObject
    invitation_settings: JsonObject


CollectionUpdateParams = CollectionCreateParams


class DeletedCollection(TypedDict, total=False):
    deleted: bool
    id: str
    erased: bool
    erasure_id: str


class PlayLinkSettings(TypedDict):
    allow_indexing: bool


class User(TypedDict):
    id: str
    collection_id: str
    email: str
    first_name: str
    last_name: str
    display_name: str
    preferred_name: str | None
    pronouns: str | None
    external_id: str | None
    phonetic_spelling: str | None
    name_language: str | None
    given_name_language: str | None
    family_name_language: str | None
    language: str | None
    custom_fields: dict[str, str | int | float | bool]
    has_recording: bool
    recording_status: Literal["none", "recorded", "approved", "needs_rerecord"]
    review_note: str | None
    listened_at: str | None
    record_url: str
    invitation: JsonObject
    pronunciation: JsonObject
    field_sources: JsonObject
    updated_by: str | None
    created_at: str
    updated_at: str


class UserCreateParams(TypedDict, total=False):
    email: str  # required by the API
    first_name: str  # required by the API
    last_name: str | None
    display_name: str
    preferred_name: str | None
    pronouns: str | None
    external_id: str | None
    phonetic_spelling: str | None
    name_language: str | None
    given_name_language: str | None
    family_name_language: str | None
    language: str | None
    custom_fields: dict[str, str | int | float | bool | None]
    pronunciation: JsonObject


UserUpdateParams = UserCreateParams


class UserBatchResult(TypedDict):
    data: list[User]


class ImportReport(TypedDict, total=False):
    mode: Literal["all_or_nothing", "valid_rows"]
    dry_run: bool
    rows: int
    created: int
    updated: int
    unchanged: int
    failed: int
    errors: list[JsonObject]
    warnings: list[JsonObject]
    name_order: Literal["given_first", "family_first"]
    family_name_first_rows: int
    person_edits: list[JsonObject]
    preview: list[JsonObject]


class ReviewParams(TypedDict, total=False):
    decision: Literal["approve", "request_rerecord"]  # required by the API
    note: str | None


class DeletedUser(TypedDict):
    deleted: bool
    id: str


class PlayLink(TypedDict):
    play_link: str
    play_url: str
    embed_html: str
    display_name: str
    duration_seconds: float
    recorded_at: str
    status: str


class PlayLinkBatchItem(TypedDict):
    user_id: str
    display_name: str
    has_recording: bool
    play_link: str | None


class DeletedRecording(TypedDict):
    deleted: bool
    user_id: str


class Webhook(TypedDict):
    id: str
    url: str
    events: list[str]
    description: str | None
    status: Literal["enabled", "disabled"]
    consecutive_failures: int
    disabled_at: str | None
    disabled_reason: str | None
    created_at: str
    updated_at: str


class WebhookWithSecret(Webhook):
    """The answer of `create` and `rotate_secret`: the only ones that show the signing secret."""

    secret: str


class WebhookCreateParams(TypedDict, total=False):
    url: str  # required by the API
    events: list[str]  # required by the API
    description: str | None


class WebhookRecoverParams(TypedDict, total=False):
    since: str  # required: RFC 3339
    until: str


class WebhookRecoverResult(TypedDict):
    queued: int


class WebhookUpdateParams(TypedDict, total=False):
    url: str
    events: list[str]
    description: str | None
    status: Literal["enabled", "disabled"]


class DeletedWebhook(TypedDict):
    deleted: bool
    id: str


class WebhookDelivery(TypedDict):
    id: str
    webhook_id: str
    event_id: str
    event: str
    status: Literal["pending", "succeeded", "failed"]
    attempt_count: int
    next_attempt_at: str | None
    created_at: str
    attempts: list[JsonObject]


class InvitationsParams(TypedDict, total=False):
    user_ids: list[str]
    filter: Literal["not_recorded"]
    coverage: list[Literal["guide", "none"]]
    resend: bool
    dry_run: bool


class InvitationsResult(TypedDict):
    object: Literal["invitation_batch"]
    collection_id: str
    dry_run: bool
    queued: int
    reminders: int
    by_language: dict[str, int]
    skipped: dict[str, int]


class Erasure(TypedDict):
    id: str
    kind: str
    subject_id: str
    actor: JsonObject
    counts: dict[str, int]
    created_at: str
