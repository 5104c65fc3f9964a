"""What the generated resources need from the hand-written layer: an operation's description, and the
answer of a redirecting operation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, AsyncIterator, Dict, Iterator, Mapping, NamedTuple, Optional, Protocol, Union


def custom_field_filters(filters: Optional[Mapping[str, Union[str, int, bool]]]) -> Dict[str, str]:
    """The `cf_` query parameters of a list's custom field filters: `{"rack": 4, "since__gte": "2024-01-01"}` gives
    `cf_rack=4&cf_since__gte=2024-01-01` (booleans as true/false)."""
    return {
        f"cf_{name}": ("true" if value else "false") if isinstance(value, bool) else str(value)
        for name, value in (filters or {}).items()
    }


class OperationSpec(NamedTuple):
    """One operation of the OpenAPI document, as the generated resources pass it to the client."""

    operation_id: str
    method: str
    #: The path template, e.g. `/api/v1/subnets/{id}`.
    path: str
    #: The resource group (`subnets`) and method name (`create`) the operation has in this SDK.
    group: str
    name: str
    #: The model of each success status, as an annotation of ipam_sdk.models: `"None"` for no content,
    #: `"str"` for a text body (CSV), `"Redirect"` for a 3xx.
    answers: Dict[str, str]


@dataclass
class Redirect:
    """The answer of an operation that redirects a browser (sign-in links): where it sends it."""

    status: int
    #: The `Location` header: where the browser goes next.
    location: str


class SyncTransport(Protocol):
    """What a generated resource calls: the client's `_call` (one answer) and `_pages` (a list's items)."""

    def _call(
        self, spec: OperationSpec, path: Mapping[str, str], query: Mapping[str, Any], headers: Mapping[str, Any],
        body: Any, timeout: Optional[float],
    ) -> Any: ...

    def _pages(
        self, spec: OperationSpec, path: Mapping[str, str], query: Mapping[str, Any], headers: Mapping[str, Any],
        body: Any, timeout: Optional[float], items_key: str,
    ) -> Iterator[Any]: ...


class AsyncTransport(Protocol):
    """The asyncio form of SyncTransport."""

    async def _call(
        self, spec: OperationSpec, path: Mapping[str, str], query: Mapping[str, Any], headers: Mapping[str, Any],
        body: Any, timeout: Optional[float],
    ) -> Any: ...

    def _pages(
        self, spec: OperationSpec, path: Mapping[str, str], query: Mapping[str, Any], headers: Mapping[str, Any],
        body: Any, timeout: Optional[float], items_key: str,
    ) -> AsyncIterator[Any]: ...
