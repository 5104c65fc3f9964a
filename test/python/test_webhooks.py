"""verify_webhook against deliveries from the real server (a receiver on loopback) and against signatures
it must refuse; sign_webhook as its counterpart."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

import ipam_sdk as sdk
from ipam_sdk import Ipam, WebhookSignatureError, sign_webhook, verify_webhook


def wait_for(receiver: Any, path: str, count: int) -> list:
    deadline = time.time() + 20
    while time.time() < deadline:
        found = [r for r in receiver.received if r[0] == path]
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{count} deliveries to {path} did not arrive")


def test_the_real_deliveries_verify_into_typed_events(ipam: Ipam, receiver: Any) -> None:
    path = f"/hook-{uuid.uuid4()}"
    hook = ipam.webhooks.create({"url": receiver.url + path, "event_types": ["subnet.created"]})
    assert ipam.webhooks.test(hook.id).response_status == 204
    # The test server delivers events from its queue only in tests that drive it; the test ping is sent at once.
    (change,) = wait_for(receiver, path, 1)

    event = verify_webhook(hook.secret, change[2], change[1])
    assert isinstance(event, sdk.PingEvent) and event.data.webhook_id == hook.id

    with pytest.raises(WebhookSignatureError):
        verify_webhook(hook.secret, change[2].replace(b"ping", b"pong"), change[1])
    with pytest.raises(WebhookSignatureError):
        verify_webhook(ipam.webhooks.rotate_secret(hook.id).secret, change[2], change[1])
    with pytest.raises(WebhookSignatureError):
        verify_webhook(hook.secret, change[2], change[1], now=time.time() + 6 * 60)  # too old by then
    with pytest.raises(WebhookSignatureError):
        verify_webhook(hook.secret, change[2], {})


def test_sign_webhook_is_what_verify_webhook_accepts_within_5_minutes() -> None:
    secret = "whsec_" + "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0IQ=="
    body = json.dumps({"type": "ping", "timestamp": "2026-01-02T03:04:05.000Z", "data": {"webhook_id": "w"}})
    event = verify_webhook(secret, body, sign_webhook(secret, "msg_1", body))
    assert isinstance(event, sdk.PingEvent) and event.timestamp.year == 2026
    change = json.dumps(
        {"type": "subnet.created", "timestamp": "2026-01-02T03:04:05Z",
         "data": {"id": str(uuid.uuid4()), "changes": {"network": [None, "10.99.0.0/24"]}}}
    )
    created = verify_webhook(secret, change.encode(), sign_webhook(secret, "msg_2", change))
    assert isinstance(created, sdk.ResourceChangeEvent) and created.data.changes["network"] == [None, "10.99.0.0/24"]
    old = sign_webhook(secret, "msg_1", body, timestamp=int(time.time()) - 6 * 60)
    with pytest.raises(WebhookSignatureError):
        verify_webhook(secret, body, old)
