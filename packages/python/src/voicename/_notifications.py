"""Webhooks, invitations and the erasure record: what voicename tells others."""

from __future__ import annotations

from typing import cast

from ._pagination import Paginator
from ._people import list_of, segment
from ._transport import QueryValue, RequestOptions, Transport
from ._types import (
    DeletedWebhook,
    Erasure,
    InvitationsParams,
    InvitationsResult,
    Webhook,
    WebhookCreateParams,
    WebhookDelivery,
    WebhookRecoverParams,
    WebhookRecoverResult,
    WebhookUpdateParams,
    WebhookWithSecret,
)


class Webhooks:
    """`/v1/webhooks`: endpoints that receive signed events (check them with `verify_webhook`)."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, params: WebhookCreateParams, *, options: RequestOptions | None = None) -> WebhookWithSecret:
        """The answer carries the signing `secret`, shown only here and on rotation."""
        return cast(WebhookWithSecret, self._t.request("POST", "/v1/webhooks", json_body=params, options=options).json())

    def list(self, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None) -> Paginator[Webhook]:
        return list_of(self._t, "/v1/webhooks", dict(params or {}), options)

    def get(self, webhook_id: str, *, options: RequestOptions | None = None) -> Webhook:
        return cast(Webhook, self._t.request("GET", f"/v1/webhooks/{segment(webhook_id)}", options=options).json())

    def update(self, webhook_id: str, params: WebhookUpdateParams, *, options: RequestOptions | None = None) -> Webhook:
        path = f"/v1/webhooks/{segment(webhook_id)}"
        return cast(Webhook, self._t.request("PATCH", path, json_body=params, options=options).json())

    def delete(self, webhook_id: str, *, options: RequestOptions | None = None) -> DeletedWebhook:
        return cast(DeletedWebhook, self._t.request("DELETE", f"/v1/webhooks/{segment(webhook_id)}", options=options).json())

    def rotate_secret(self, webhook_id: str, *, options: RequestOptions | None = None) -> WebhookWithSecret:
        """A new secret; the previous one keeps signing alongside it for 24 hours."""
        path = f"/v1/webhooks/{segment(webhook_id)}/rotate-secret"
        return cast(WebhookWithSecret, self._t.request("POST", path, options=options).json())

    def test(self, webhook_id: str, *, options: RequestOptions | None = None) -> WebhookDelivery:
        """Sends a signed `webhook.test` event now; answers the delivery with the attempt's result."""
        path = f"/v1/webhooks/{segment(webhook_id)}/test"
        return cast(WebhookDelivery, self._t.request("POST", path, options=options).json())

    def deliveries(
        self, webhook_id: str, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None
    ) -> Paginator[WebhookDelivery]:
        """Newest first, each with its attempts."""
        return list_of(self._t, f"/v1/webhooks/{segment(webhook_id)}/deliveries", dict(params or {}), options)

    def redeliver(self, webhook_id: str, delivery_id: str, *, options: RequestOptions | None = None) -> WebhookDelivery:
        """Sends a delivery again now (same body, same `webhook-id`)."""
        path = f"/v1/webhooks/{segment(webhook_id)}/deliveries/{segment(delivery_id)}/redeliver"
        return cast(WebhookDelivery, self._t.request("POST", path, options=options).json())

    def messages(
        self, webhook_id: str, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None
    ) -> Paginator[WebhookDelivery]:
        """Messages (the same objects as deliveries), newest first, narrowed by `status`, `event_type`, `since`, `until`."""
        return list_of(self._t, f"/v1/webhooks/{segment(webhook_id)}/messages", dict(params or {}), options)

    def recover(
        self, webhook_id: str, params: WebhookRecoverParams, *, options: RequestOptions | None = None
    ) -> WebhookRecoverResult:
        """Queues every message that failed in [`since`, `until`) again, oldest first, each with its original `webhook-id`."""
        path = f"/v1/webhooks/{segment(webhook_id)}/recover"
        return cast(WebhookRecoverResult, self._t.request("POST", path, json_body=params, options=options).json())

    def replay_message(self, webhook_id: str, message_id: str, *, options: RequestOptions | None = None) -> WebhookDelivery:
        """Sends one message again now, whatever its status (a new attempt, the same `webhook-id`)."""
        path = f"/v1/webhooks/{segment(webhook_id)}/messages/{segment(message_id)}/replay"
        return cast(WebhookDelivery, self._t.request("POST", path, options=options).json())


class Invitations:
    """`POST /v1/collections/{collection_id}/invitations`: e-mail people their record links."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def send(self, collection_id: str, params: InvitationsParams, *, options: RequestOptions | None = None) -> InvitationsResult:
        """`{"user_ids": [...]}` or `{"filter": "not_recorded"}`; `"resend": True` includes people
        invited in the last 24 hours."""
        path = f"/v1/collections/{segment(collection_id)}/invitations"
        return cast(InvitationsResult, self._t.request("POST", path, json_body=params, options=options).json())


class Erasures:
    """`GET /v1/erasures`: the record, free of personal data, of every erasure."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self, params: dict[str, QueryValue] | None = None, *, options: RequestOptions | None = None) -> Paginator[Erasure]:
        return list_of(self._t, "/v1/erasures", dict(params or {}), options)
