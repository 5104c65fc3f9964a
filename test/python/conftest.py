"""Fixtures of the Python SDK's tests. test/python/python-sdk.test.ts starts the real server and a control
endpoint on loopback and runs pytest with their URLs; each test makes its own organisations through it.

Every client made here is strict (an answer with a field its model lacks fails) and records each answer it
read into `SEEN` (operationId -> statuses), which test_zz_coverage.py checks against the document."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any, Callable, Dict, Set

import pytest

from ipam_sdk import Ipam, ResponseInfo

#: Every status each operation answered through the SDK, over the whole run.
SEEN: Dict[str, Set[int]] = {}


def record(info: ResponseInfo) -> None:
    SEEN.setdefault(info.operation_id, set()).add(info.status)


BASE_URL = os.environ.get("IPAM_TEST_BASE_URL", "")
CONTROL_URL = os.environ.get("IPAM_TEST_CONTROL_URL", "")


def control(path: str, body: Dict[str, Any]) -> Dict[str, Any]:
    request = urllib.request.Request(
        CONTROL_URL + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        answer: Dict[str, Any] = json.loads(response.read())
        return answer


def new_org(plan: str = "pro", limits: Any = None) -> Dict[str, Any]:
    """A new organisation: {key, session, email, user_id, org_id}."""
    if not CONTROL_URL:
        pytest.skip("run through test/python/python-sdk.test.ts (npx vitest run test/python)")
    return control("/orgs", {"plan": plan, "limits": limits})


def client(api_key: Any = None, **options: Any) -> Ipam:
    options.setdefault("strict", True)
    options.setdefault("on_response", record)
    return Ipam(BASE_URL, api_key, **options)


@pytest.fixture
def org() -> Dict[str, Any]:
    return new_org("teams")


@pytest.fixture
def ipam(org: Dict[str, Any]) -> Ipam:
    return client(org["key"])


@pytest.fixture
def make_client() -> Callable[..., Ipam]:
    return client


class Receiver:
    """An HTTP receiver on 127.0.0.1 that answers 204 and keeps every request (for webhook deliveries)."""

    def __init__(self) -> None:
        import http.server
        import threading

        received = self.received = []  # type: list[tuple[str, dict[str, str], bytes]]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Any:
    started = Receiver()
    yield started
    started.close()
