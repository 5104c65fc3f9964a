"""Retries, backoff, Retry-After, idempotency keys and timeouts, against a scripted HTTP server on loopback
(the real service never answers 503 on demand). The sleep is injected: nothing really waits."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from ipam_sdk import (
    ApiConnectionError,
    ApiTimeoutError,
    ConflictError,
    Folder,
    Ipam,
    ServiceUnavailableError,
    retry_delay,
)

FOLDER = {
    "id": "3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f", "name": "f", "description": "", "sort_order": 0,
    "created_at": "2026-11-22T10:00:00.000Z", "updated_at": "2026-11-22T10:00:00Z",
}


class Scripted:
    """Answers each request with the next scripted step: (status, headers, body), "close" or "hang"."""

    def __init__(self) -> None:
        self.script: List[Any] = []
        self.seen: List[Dict[str, str]] = []
        scripted = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def handle_one(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                self.rfile.read(length)
                scripted.seen.append({"method": self.command, **{k.lower(): v for k, v in self.headers.items()}})
                step = scripted.script.pop(0) if scripted.script else (200, {}, [])
                if step == "close":
                    self.close_connection = True
                    self.connection.close()
                    return
                if step == "hang":
                    threading.Event().wait(2)
                    return
                status, headers, body = step
                payload = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = handle_one

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted()
    yield server
    server.server.shutdown()
    server.server.server_close()


def sdk(scripted: Scripted, **options: Any) -> Tuple[Ipam, List[float]]:
    waits: List[float] = []
    return Ipam(scripted.url, "svc_test", sleep=waits.append, random=lambda: 0.5, **options), waits


def error(status: int, code: str) -> Tuple[int, Dict[str, str], Dict[str, str]]:
    return (status, {}, {"error": f"scripted {status}", "code": code})


def test_backoff_doubles_with_equal_jitter_up_to_8_s() -> None:
    assert [retry_delay(n, None, lambda: 1) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert [retry_delay(n, None, lambda: 0) for n in range(3)] == [0.25, 0.5, 1]
    assert retry_delay(3, 7, lambda: 0) == 7


def test_a_network_error_then_an_answer(scripted: Scripted) -> None:
    client, waits = sdk(scripted)
    scripted.script = ["close", (200, {}, [FOLDER])]
    assert client.folders.list()[0].name == "f"
    assert len(scripted.seen) == 2 and waits == [0.375]


def test_a_503_is_retried_and_a_post_keeps_its_idempotency_key(scripted: Scripted) -> None:
    client, waits = sdk(scripted)
    scripted.script = [error(503, "unavailable"), "close", (201, {}, FOLDER)]
    assert isinstance(client.folders.create({"name": "f"}), Folder)
    keys = {seen["idempotency-key"] for seen in scripted.seen}
    request_ids = {seen["x-request-id"] for seen in scripted.seen}
    assert len(scripted.seen) == 3 and len(keys) == 1 and len(request_ids) == 1
    assert waits == [0.375, 0.75]


def test_a_429_waits_what_retry_after_says(scripted: Scripted) -> None:
    client, waits = sdk(scripted)
    scripted.script = [(429, {"retry-after": "7"}, {"error": "slow down", "code": "rate_limited"}), (200, {}, [])]
    assert client.vlans.list() == []
    assert waits == [7.0]


def test_a_retry_after_past_the_maximum_is_the_callers(scripted: Scripted) -> None:
    client, waits = sdk(scripted, max_retry_after=5)
    scripted.script = [(503, {"retry-after": "3600"}, {"error": "later", "code": "unavailable"})]
    with pytest.raises(ServiceUnavailableError) as caught:
        client.vlans.list()
    assert caught.value.retry_after == 3600 and waits == []


def test_an_in_flight_409_is_retried_with_the_same_key(scripted: Scripted) -> None:
    client, waits = sdk(scripted)
    scripted.script = [error(409, "idempotency_in_flight"), (201, {}, FOLDER)]
    client.folders.create({"name": "f"}, idempotency_key="my-key")
    assert [seen["idempotency-key"] for seen in scripted.seen] == ["my-key", "my-key"]


def test_a_409_is_a_conflict_error_once_the_retries_are_spent(scripted: Scripted) -> None:
    client, _ = sdk(scripted, max_retries=0)
    scripted.script = [error(409, "idempotency_in_flight")]
    with pytest.raises(ConflictError) as caught:
        client.folders.create({"name": "f"})
    assert caught.value.code == "idempotency_in_flight"


def test_a_patch_retried_a_delete_after_a_500_but_not_a_501(scripted: Scripted) -> None:
    client, _ = sdk(scripted, max_retries=1)
    scripted.script = [error(500, "internal"), (200, {}, FOLDER), error(501, "internal")]
    client.folders.update(FOLDER["id"], {"name": "f"})
    with pytest.raises(Exception) as caught:
        client.folders.delete(FOLDER["id"])
    assert getattr(caught.value, "status") == 501 and len(scripted.seen) == 3


def test_no_answer_at_all(scripted: Scripted) -> None:
    client, waits = sdk(scripted, max_retries=2)
    scripted.script = ["close", "close", "close"]
    with pytest.raises(ApiConnectionError):
        client.folders.list()
    assert len(scripted.seen) == 3 and len(waits) == 2


def test_a_timeout_per_attempt(scripted: Scripted) -> None:
    client, _ = sdk(scripted, max_retries=0, timeout=0.2)
    scripted.script = ["hang"]
    with pytest.raises(ApiTimeoutError):
        client.folders.list()
