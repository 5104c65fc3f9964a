"""ipam-sdk: a typed Python client of the IPAM Service API.

    from ipam_sdk import Ipam
    ipam = Ipam("https://ipam.example.com", api_key="svc_...")
    folder = ipam.folders.create({"name": "Datacenter A"})

The models and resources (ipam_sdk._generated) are generated from openapi/openapi.json by
clients/python/generate.py (`npm run sdk`); this package adds the transport (retries, timeouts, idempotency
keys), typed errors, pagination and webhook verification.
"""

from ._client import AsyncIpam, Ipam, ResponseInfo, retry_delay, should_retry_status
from ._generated import models as _models
from ._generated.models import *
from ._generated.resources import OPERATIONS
from ._operation import OperationSpec, Redirect
from .errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    AuthenticationError,
    BadGatewayError,
    BadRequestError,
    ConflictError,
    CursorExpiredError,
    InternalServerError,
    ModelError,
    NotFoundError,
    NotImplementedApiError,
    NotModified,
    PayloadTooLargeError,
    PermissionDeniedError,
    PlanLimitError,
    PreconditionFailedError,
    RateLimitError,
    RateLimitInfo,
    ServiceUnavailableError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    api_error_for,
)
from .webhooks import WebhookSignatureError, sign_webhook, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "ApiConnectionError",
    "ApiError",
    "ApiTimeoutError",
    "AsyncIpam",
    "AuthenticationError",
    "BadGatewayError",
    "BadRequestError",
    "ConflictError",
    "CursorExpiredError",
    "InternalServerError",
    "Ipam",
    "ModelError",
    "NotFoundError",
    "NotImplementedApiError",
    "NotModified",
    "OPERATIONS",
    "OperationSpec",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PlanLimitError",
    "PreconditionFailedError",
    "RateLimitError",
    "RateLimitInfo",
    "Redirect",
    "ResponseInfo",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "WebhookSignatureError",
    "api_error_for",
    "retry_delay",
    "should_retry_status",
    "sign_webhook",
    "verify_webhook",
]
__all__ += _models.__all__
