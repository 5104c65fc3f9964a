"""The errors the SDK raises.

An HTTP error status becomes an `ApiError` subclass chosen by the status (`NotFoundError` for 404,
`RateLimitError` for 429 ...), carrying the service's `{error, code}` body, the response headers, the request
id and the rate-limit figures; a request that got no answer becomes an `ApiConnectionError`
(`ApiTimeoutError` when the client's timeout ran out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Mapping, Optional, Type, cast, get_args

from ._generated.models import ErrorCode

#: Every code of the document's ErrorCode enum.
ERROR_CODES = frozenset(cast("tuple[str, ...]", get_args(ErrorCode)))


@dataclass
class RateLimitInfo:
    """The `X-RateLimit-*` headers of an answer."""

    #: Requests allowed per window.
    limit: int
    #: Requests left in the current window.
    remaining: int
    #: When the window resets.
    reset: datetime


def rate_limit_of(headers: Mapping[str, str]) -> Optional[RateLimitInfo]:
    """`X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds); None when any is missing."""
    values = [headers.get(f"x-ratelimit-{name}", "").strip() for name in ("limit", "remaining", "reset")]
    if not all(re.fullmatch(r"\d+", value) for value in values):
        return None
    limit, remaining, reset = (int(value) for value in values)
    return RateLimitInfo(limit, remaining, datetime.fromtimestamp(reset, tz=timezone.utc))


def retry_after_of(headers: Mapping[str, str], now: Optional[datetime] = None) -> Optional[float]:
    """`Retry-After` in seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if re.fullmatch(r"\d+", value):
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


class ApiError(Exception):
    """A non-2xx answer. `code` is the service's machine-readable code (`not_found`, `validation` ...), or
    `http_<status>` for an answer that carries none (a proxy's error page; `body` keeps what was answered)."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str], method: str, url: str) -> None:
        fields: Dict[str, Any] = body if isinstance(body, dict) else {}
        message = fields.get("error")
        super().__init__(message if isinstance(message, str) else f"HTTP {status}")
        self.status = status
        code = fields.get("code")
        self.code: str = code if isinstance(code, str) and code in ERROR_CODES else f"http_{status}"
        self.message: str = str(self)
        self.body = body
        self.headers = dict(headers)
        #: `X-Request-Id` of the answer: quote it in a support request.
        self.request_id: Optional[str] = headers.get("x-request-id")
        self.rate_limit = rate_limit_of(headers)
        #: Seconds to wait before trying again (`Retry-After`), when the answer said.
        self.retry_after = retry_after_of(headers)
        self.method = method
        self.url = url


class BadRequestError(ApiError):
    """400: the request is invalid; the message names the field (`vlan_number: ...`)."""


class AuthenticationError(ApiError):
    """401: no credentials, or a wrong, revoked or expired key."""


class PlanLimitError(ApiError):
    """402: a limit of the organisation's plan is reached (`code == "plan_limit"`)."""


class PermissionDeniedError(ApiError):
    """403: the key, role or plan may not do this."""


class NotFoundError(ApiError):
    """404: no such object in this organisation."""


class ConflictError(ApiError):
    """409: the request conflicts with the current state (a POST whose Idempotency-Key is still in flight)."""


class CursorExpiredError(ApiError):
    """410: the change feed no longer keeps the changes after this cursor."""


class PreconditionFailedError(ApiError):
    """412: the resource changed since the version sent in `if_match`; `headers["etag"]` is its current one."""


class PayloadTooLargeError(ApiError):
    """413: the body is too large."""


class UnsupportedMediaTypeError(ApiError):
    """415: the body is not JSON."""


class UnprocessableEntityError(ApiError):
    """422: the Idempotency-Key was used before with another body (`code == "idempotency_mismatch"`)."""


class RateLimitError(ApiError):
    """429: too many requests; `retry_after` says when to try again (the client already retried)."""


class InternalServerError(ApiError):
    """A 5xx without a class of its own."""


class NotImplementedApiError(InternalServerError):
    """501: the route is declared but not built on this server."""


class BadGatewayError(InternalServerError):
    """502: an upstream the service called failed (a webhook endpoint, a network tool's target)."""


class ServiceUnavailableError(InternalServerError):
    """503: a dependency of the service is unavailable for now."""


class NotModified(ApiError):
    """304, for a `get` sent with `if_none_match`: the version you hold is still current."""


BY_STATUS: Dict[int, Type[ApiError]] = {
    304: NotModified,
    400: BadRequestError,
    401: AuthenticationError,
    402: PlanLimitError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: CursorExpiredError,
    412: PreconditionFailedError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    501: NotImplementedApiError,
    502: BadGatewayError,
    503: ServiceUnavailableError,
}


def api_error_for(status: int, body: Any, headers: Mapping[str, str], method: str, url: str) -> ApiError:
    """The `ApiError` subclass for this status (`ApiError` itself for an unlisted 4xx)."""
    error_class = BY_STATUS.get(status) or (InternalServerError if status >= 500 else ApiError)
    return error_class(status, body, headers, method, url)


class ApiConnectionError(Exception):
    """The request got no HTTP answer (connection refused or reset, DNS failure ...), after the retries."""

    def __init__(self, message: str, method: str, url: str, request_id: Optional[str]) -> None:
        super().__init__(message)
        self.method = method
        self.url = url
        #: The `X-Request-Id` the SDK sent with the request.
        self.request_id = request_id


class ApiTimeoutError(ApiConnectionError):
    """No answer within the client's `timeout` (per attempt)."""


class ModelError(ValueError):
    """An answer that does not fit the model the document gives it (raised only by a `strict` client, or
    when a required field is missing)."""
