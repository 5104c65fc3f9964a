"""Receiving the service's webhooks: `verify_webhook` checks a delivery's Standard Webhooks v1 signature
(`webhook-id`, `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 of `id.timestamp.body` keyed with the
`whsec_` secret, timestamps within 5 minutes) and returns the typed event; `sign_webhook` is its counterpart,
for testing a receiver without the service."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Dict, Mapping, Optional, Union, cast

from ._convert import from_json
from ._generated.models import WebhookEvent
from .errors import ModelError

#: How far a delivery's timestamp may be from now, either way, in seconds.
TOLERANCE_SECONDS = 5 * 60


class WebhookSignatureError(Exception):
    """The signature is missing, wrong, made with another secret, or too old (more than 5 minutes)."""


def _key(secret: str) -> bytes:
    return base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)


def _signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    message = f"{webhook_id}.{timestamp}.".encode() + body
    return base64.b64encode(hmac.new(_key(secret), message, hashlib.sha256).digest()).decode()


def verify_webhook(
    secret: str, body: Union[bytes, str], headers: Mapping[str, str], now: Optional[float] = None
) -> WebhookEvent:
    """Verifies a delivery and returns its event (narrow it on `type`). Pass the body exactly as received
    (the raw bytes, never re-serialised JSON) and the request headers. Raises WebhookSignatureError when the
    delivery is not authentic: reject it then (any 4xx). `webhook-id` is the same on every retry of an event:
    use it to process an event once."""
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    lower: Dict[str, str] = {name.lower(): value for name, value in headers.items()}
    webhook_id = lower.get("webhook-id")
    timestamp = lower.get("webhook-timestamp", "")
    signatures = lower.get("webhook-signature")
    if not webhook_id or not signatures or not timestamp.isdigit():
        raise WebhookSignatureError("missing webhook-id, webhook-timestamp or webhook-signature")
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        raise WebhookSignatureError("the timestamp is more than 5 minutes away")
    expected = _signature(secret, webhook_id, int(timestamp), raw)
    offered = [part.split(",", 1)[1] for part in signatures.split() if part.startswith("v1,")]
    if not any(hmac.compare_digest(expected, candidate) for candidate in offered):
        raise WebhookSignatureError("no matching signature")
    try:
        return cast(WebhookEvent, from_json(WebhookEvent, json.loads(raw), where="webhook event"))
    except (ValueError, ModelError) as error:
        raise WebhookSignatureError(f"a signed body that is no event of this API: {error}") from error


def sign_webhook(secret: str, webhook_id: str, body: Union[bytes, str], timestamp: Optional[int] = None) -> Dict[str, str]:
    """The headers the service would send with `body` (for tests and local development of a receiver)."""
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    seconds = int(time.time()) if timestamp is None else timestamp
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(seconds),
        "webhook-signature": f"v1,{_signature(secret, webhook_id, seconds, raw)}",
    }


__all__ = ["verify_webhook", "sign_webhook", "WebhookSignatureError", "TOLERANCE_SECONDS"]
