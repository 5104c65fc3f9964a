"""Typed errors from the real server: the class by status, the service's code, the request id and the
rate-limit figures."""

from __future__ import annotations

import uuid
from typing import Any, Dict

import pytest

from ipam_sdk import (
    AuthenticationError,
    BadRequestError,
    Ipam,
    NotFoundError,
    PermissionDeniedError,
    PlanLimitError,
    RateLimitError,
    UnprocessableEntityError,
)

from conftest import client, new_org


def test_400_names_the_field(ipam: Ipam) -> None:
    with pytest.raises(BadRequestError) as caught:
        ipam.vlans.create({"vlan_number": 4095})
    assert caught.value.status == 400 and caught.value.code == "validation"
    assert caught.value.message.startswith("vlan_number: ")
    assert caught.value.request_id


def test_401_for_a_wrong_key() -> None:
    with pytest.raises(AuthenticationError) as caught:
        client("svc_" + "x" * 64).folders.list()
    assert caught.value.code == "unauthenticated"


def test_403_for_a_read_only_key() -> None:
    with pytest.raises(PermissionDeniedError) as caught:
        client(new_org("free")["key"]).folders.create({"name": "read-only key"})
    assert caught.value.status == 403 and caught.value.code == "forbidden"


def test_402_at_a_plan_limit() -> None:
    with pytest.raises(PlanLimitError) as caught:
        client(new_org("pro", {"vlans": 0})["key"]).vlans.create({"vlan_number": 5})
    assert caught.value.code == "plan_limit"


def test_404_with_its_request_id(ipam: Ipam) -> None:
    request_id = str(uuid.uuid4())
    with pytest.raises(NotFoundError) as caught:
        client(ipam.headers["authorization"][len("Bearer "):], headers={"x-request-id": request_id}).folders.get(
            str(uuid.uuid4())
        )
    assert caught.value.code == "not_found" and caught.value.request_id == request_id
    assert caught.value.rate_limit is not None and caught.value.rate_limit.limit > 0


def test_422_for_a_key_reused_with_another_body(ipam: Ipam) -> None:
    key = str(uuid.uuid4())
    ipam.folders.create({"name": "first"}, idempotency_key=key)
    assert ipam.folders.create({"name": "first"}, idempotency_key=key).name == "first"  # replayed
    with pytest.raises(UnprocessableEntityError) as caught:
        ipam.folders.create({"name": "second"}, idempotency_key=key)
    assert caught.value.code == "idempotency_mismatch"


def test_429_after_the_retries_with_retry_after_and_rate_limit() -> None:
    limited: Dict[str, Any] = new_org("pro", {"rate_limit": 2})
    sdk = client(limited["key"], max_retries=0)
    sdk.vlans.list()
    sdk.vlans.list()
    with pytest.raises(RateLimitError) as caught:
        sdk.vlans.list()
    error = caught.value
    assert error.code == "rate_limited" and error.retry_after is not None and error.retry_after > 0
    assert error.rate_limit is not None and error.rate_limit.remaining == 0
