"""The clients: `Ipam` (sync) and `AsyncIpam` (asyncio), with the transport every generated method uses.

Each request carries the API key (or a session), an `X-Request-Id` and, for a POST, an `Idempotency-Key`,
both the same on every attempt. Timeouts and retries happen here: a network error or a 5xx is retried for a
request that may be repeated (an idempotent method, or a POST with its key, which the service answers from
the first attempt if that one did its work), a 429 always, a 409 of a keyed POST whose first attempt is
still running; the wait is exponential with jitter unless the answer's `Retry-After` says how long.
"""

from __future__ import annotations

import asyncio
import functools
import random as random_module
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union

from . import _convert
from ._generated import models
from ._generated.resources import AsyncResources, Resources
from ._operation import OperationSpec, Redirect
from .errors import ApiConnectionError, ApiError, ApiTimeoutError, RateLimitInfo, api_error_for, rate_limit_of, retry_after_of

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_AFTER = 60.0
BASE_DELAY = 0.5
MAX_DELAY = 8.0

#: Methods whose repetition the service treats as harmless: retried after a network error or a 5xx.
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})


def retry_delay(retry: int, retry_after: Optional[float], random: Callable[[], float]) -> float:
    """Seconds before retry number `retry` (0-based): 0.5 s, 1 s, 2 s ... capped at 8 s, with "equal jitter"
    (between half and all of it), unless the answer's `Retry-After` says how long."""
    if retry_after is not None:
        return retry_after
    ceiling = min(MAX_DELAY, BASE_DELAY * (1 << retry))
    return ceiling / 2 + ceiling / 2 * random()


def should_retry_status(method: str, status: int, keyed: bool, code: Optional[str] = None) -> bool:
    """A 429 always (not processed); a 5xx but 501 for a repeatable request; a keyed POST's in-flight 409."""
    if status == 429:
        return True
    if status == 409:
        return keyed and code in (None, "idempotency_in_flight")
    return status >= 500 and status != 501 and (method in IDEMPOTENT or keyed)


@dataclass
class ResponseInfo:
    """What the client tells `on_response` of each call's final answer (after retries)."""

    operation_id: str
    method: str
    url: str
    status: int
    #: `X-Request-Id` of the request, the one to quote to support.
    request_id: Optional[str]
    rate_limit: Optional[RateLimitInfo]
    #: `Idempotency-Key` the request carried (the SDK makes one for every POST).
    idempotency_key: Optional[str]
    headers: Dict[str, str]
    #: The answer read into its model (None for an error status: see the raised ApiError).
    parsed: Any


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A 3xx is the answer (sign-in links redirect a browser): never followed."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


@functools.lru_cache(maxsize=None)
def _answer_type(annotation: str) -> Any:
    """A generated answer annotation (a string naming models) as the type `from_json` reads."""
    namespace: Dict[str, Any] = dict(vars(models))
    namespace.update(List=List, Dict=Dict, Optional=Optional, Union=Union, Any=Any, datetime=datetime)
    return eval(annotation, namespace)  # the generator's annotations only name models and typing forms


class Ipam(Resources):
    """A client of the IPAM Service API, bound to one organisation's credentials.

    ipam = Ipam("https://ipam.example.com", api_key="svc_...")
    ipam.subnets.create({"network": "10.20.0.0/16", "name": "Site A"})

    `timeout` is per attempt, in seconds; `max_retries` counts the attempts after the first; `sleep` and
    `random` exist so tests can retry without waiting; `strict` refuses answers with fields the models lack.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        *,
        session: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = random_module.random,
        on_response: Optional[Callable[[ResponseInfo], None]] = None,
        strict: bool = False,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers: Dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"
        if session:
            # A browser session: its cookie and the header that proves the request is not a cross-site form.
            self.headers["cookie"] = f"service_session={session}"
            self.headers["x-requested-with"] = "XMLHttpRequest"
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_after = max_retry_after
        self.sleep = sleep
        self.random = random
        self.on_response = on_response
        self.strict = strict
        self._init_resources(self)

    def _call(
        self,
        spec: OperationSpec,
        path: Mapping[str, str],
        query: Mapping[str, Any],
        headers: Mapping[str, Any],
        body: Any,
        timeout: Optional[float],
    ) -> Any:
        return self._send(spec, path, query, headers, body, timeout)[0]

    def _pages(
        self,
        spec: OperationSpec,
        path: Mapping[str, str],
        query: Mapping[str, Any],
        headers: Mapping[str, Any],
        body: Any,
        timeout: Optional[float],
        items_key: str,
    ) -> Iterator[Any]:
        """Every item of a paged list: the first page by `offset` (if given), each next one by `Next-Cursor`."""
        position: Dict[str, Any] = {}
        while True:
            page, answer_headers = self._send(spec, path, {**query, **position}, headers, body, timeout)
            yield from (getattr(page, items_key) if items_key else page)
            cursor = answer_headers.get("next-cursor")
            if not cursor:
                return
            position = {"cursor": cursor, "offset": None}

    def _send(
        self,
        spec: OperationSpec,
        path: Mapping[str, str],
        query: Mapping[str, Any],
        headers: Mapping[str, Any],
        body: Any,
        timeout: Optional[float],
    ) -> Tuple[Any, Dict[str, str]]:
        url = self.base_url + spec.path.format(**{k: urllib.parse.quote(str(v), safe="") for k, v in path.items()})
        pairs = [(key, _query_value(value)) for key, value in query.items() if value is not None]
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        request_headers = dict(self.headers)
        request_headers.update({k.lower(): str(v) for k, v in headers.items() if v is not None})
        request_headers.setdefault("x-request-id", str(uuid.uuid4()))
        # One key for every attempt of a POST, so a retry of one that did its work gets its answer, not a twin.
        if spec.method == "POST":
            request_headers.setdefault("idempotency-key", str(uuid.uuid4()))
        data = None
        if body is not None:
            data = _convert.to_json(body).encode("utf-8")
            request_headers["content-type"] = "application/json"
        status, answer_headers, payload = self._attempts(spec.method, url, request_headers, data, timeout)
        parsed_body = _read_body(answer_headers, payload)
        info = ResponseInfo(
            spec.operation_id, spec.method, url, status, request_headers.get("x-request-id"),
            rate_limit_of(answer_headers), request_headers.get("idempotency-key"), answer_headers, None,
        )
        annotation = spec.answers.get(str(status))
        if status >= 300 and annotation is None:
            error = api_error_for(status, parsed_body, answer_headers, spec.method, url)
            if self.on_response:
                self.on_response(info)
            raise error
        if annotation == "Redirect":
            parsed: Any = Redirect(status, answer_headers.get("location", ""))
        elif annotation in (None, "None"):
            parsed = None
        elif annotation == "str":
            parsed = payload.decode("utf-8")
        else:
            parsed = _convert.from_json(_answer_type(annotation), parsed_body, self.strict, spec.operation_id)
        info.parsed = parsed
        if self.on_response:
            self.on_response(info)
        return parsed, answer_headers

    def _attempts(
        self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes], timeout: Optional[float]
    ) -> Tuple[int, Dict[str, str], bytes]:
        keyed = "idempotency-key" in headers
        limit = self.timeout if timeout is None else timeout
        attempt = 0
        while True:
            retries_left = attempt < self.max_retries
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with _OPENER.open(request, timeout=limit or None) as response:
                    status, answer_headers, payload = response.status, _lower(response.headers), response.read()
            except urllib.error.HTTPError as error:
                status, answer_headers, payload = error.code, _lower(error.headers), error.read()
            except (OSError, urllib.error.URLError) as error:
                if retries_left and (method in IDEMPOTENT or keyed):
                    self.sleep(retry_delay(attempt, None, self.random))
                    attempt += 1
                    continue
                reason = getattr(error, "reason", error)
                timed_out = isinstance(reason, (socket.timeout, TimeoutError))
                error_class = ApiTimeoutError if timed_out else ApiConnectionError
                what = f"no answer within {limit} s" if timed_out else str(reason)
                raise error_class(f"{method} {url}: {what}", method, url, headers.get("x-request-id")) from error
            if retries_left and should_retry_status(method, status, keyed, _code_of(answer_headers, payload)):
                retry_after = retry_after_of(answer_headers)
                if retry_after is None or retry_after <= self.max_retry_after:
                    self.sleep(retry_delay(attempt, retry_after, self.random))
                    attempt += 1
                    continue
            return status, answer_headers, payload


class AsyncIpam(AsyncResources):
    """The asyncio form of `Ipam`: the same resources with `async` methods (`await ipam.subnets.list()`).

    Each call runs the sync transport in a worker thread (`asyncio.to_thread`), so it never blocks the event
    loop and needs no dependency; it takes the same arguments as `Ipam`.
    """

    def __init__(self, base_url: str, api_key: Optional[str] = None, **options: Any) -> None:
        self.sync = Ipam(base_url, api_key, **options)
        self._init_resources(self)

    async def _call(self, *args: Any) -> Any:
        return await asyncio.to_thread(self.sync._call, *args)

    async def _pages(self, *args: Any) -> AsyncIterator[Any]:
        pages = self.sync._pages(*args)
        done = object()
        while True:
            item = await asyncio.to_thread(lambda: next(pages, done))
            if item is done:
                return
            yield item


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _lower(headers: Any) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for name, value in headers.items() if headers is not None else []:
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def _read_body(headers: Mapping[str, str], payload: bytes) -> Any:
    """JSON when the answer says so (integers exact), text otherwise, None when empty."""
    if not payload:
        return None
    text = payload.decode("utf-8", errors="replace")
    if "json" in headers.get("content-type", ""):
        try:
            return __import__("json").loads(text)
        except ValueError:
            return text
    return text


def _code_of(headers: Mapping[str, str], payload: bytes) -> Optional[str]:
    body = _read_body(headers, payload)
    code = body.get("code") if isinstance(body, dict) else None
    return code if isinstance(code, str) else None


__all__ = ["Ipam", "AsyncIpam", "ResponseInfo", "retry_delay", "should_retry_status", "ApiError"]
