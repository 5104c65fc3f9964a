"""Reading JSON answers into the generated models, and writing request bodies as JSON.

`from_json(annotation, value)` walks the annotation: dataclasses field by field (a field's JSON key is its
name, or `metadata["json"]`), `datetime` from RFC 3339 text, `Union` by the first member the value fits
strictly (the document's oneOf), lists, dicts and Literals. Integers stay Python ints: exact however large
(a count of IPv6 addresses). A key the model does not know is ignored (a newer server), unless `strict`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union, get_args, get_origin, get_type_hints

from .errors import ModelError

_RFC3339 = re.compile(
    r"(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)(?:\.(\d+))?([Zz]|[+-]\d\d:\d\d)?"
)

#: Called with (model class, JSON keys present) for every object read; tests use it to see which fields answers carry.
observer: Optional[Callable[[type, Tuple[str, ...]], None]] = None


def parse_datetime(text: str) -> datetime:
    """RFC 3339 text as an aware datetime (Python 3.9's fromisoformat reads neither `Z` nor 1-5 digit fractions)."""
    match = _RFC3339.fullmatch(text.strip())
    if not match:
        raise ModelError(f"not an RFC 3339 date-time: {text!r}")
    date, time, fraction, zone = match.groups()
    micro = (fraction or "0")[:6].ljust(6, "0")
    offset = "+00:00" if zone in (None, "Z", "z") else zone
    return datetime.fromisoformat(f"{date}T{time}.{micro}{offset}").astimezone(timezone.utc)


_FIELDS: Dict[type, Tuple[Tuple[str, str, Any, bool], ...]] = {}


def _fields(cls: type) -> Tuple[Tuple[str, str, Any, bool], ...]:
    """(name, JSON key, annotation, required) of each field of a dataclass."""
    if cls in _FIELDS:
        return _FIELDS[cls]
    hints = get_type_hints(cls, vars(sys.modules[cls.__module__]))
    _FIELDS[cls] = tuple(
        (
            f.name,
            f.metadata.get("json", f.name),
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
    )
    return _FIELDS[cls]


def from_json(annotation: Any, value: Any, strict: bool = False, where: str = "answer") -> Any:
    """`value` (parsed JSON) as `annotation` describes it; ModelError when it does not fit."""
    if annotation is Any or annotation is object:
        return value
    if annotation is type(None):
        if value is not None:
            raise ModelError(f"{where}: expected null, got {type(value).__name__}")
        return None
    origin = get_origin(annotation)
    if origin is Union:
        members = get_args(annotation)
        if value is None and type(None) in members:
            return None
        candidates = [m for m in members if m is not type(None)]
        errors = []
        # Strictly first, so a oneOf picks the member whose fields the value has exactly.
        for attempt_strict in ((True, False) if not strict else (True,)):
            for member in candidates:
                try:
                    return from_json(member, value, attempt_strict, where)
                except ModelError as error:
                    errors.append(str(error))
        raise ModelError(f"{where}: fits none of {annotation}: {'; '.join(errors)}")
    if origin is Literal:
        if value not in get_args(annotation):
            raise ModelError(f"{where}: {value!r} is not one of {get_args(annotation)}")
        return value
    if origin in (list, List):
        if not isinstance(value, list):
            raise ModelError(f"{where}: expected an array, got {type(value).__name__}")
        (item,) = get_args(annotation) or (Any,)
        return [from_json(item, v, strict, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin in (dict, Dict):
        if not isinstance(value, dict):
            raise ModelError(f"{where}: expected an object, got {type(value).__name__}")
        _key, item = get_args(annotation) or (str, Any)
        return {k: from_json(item, v, strict, f"{where}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return _dataclass_from_json(annotation, value, strict, where)
    if annotation is datetime:
        if not isinstance(value, str):
            raise ModelError(f"{where}: expected a date-time string, got {type(value).__name__}")
        return parse_datetime(value)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ModelError(f"{where}: expected a number, got {type(value).__name__}")
        return float(value)
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ModelError(f"{where}: expected an integer, got {type(value).__name__}")
        return value
    if annotation in (str, bool):
        if type(value) is not annotation:
            raise ModelError(f"{where}: expected {annotation.__name__}, got {type(value).__name__}")
        return value
    raise ModelError(f"{where}: no reader for {annotation!r}")


def _dataclass_from_json(cls: type, value: Any, strict: bool, where: str) -> Any:
    if not isinstance(value, dict):
        raise ModelError(f"{where}: expected an object for {cls.__name__}, got {type(value).__name__}")
    fields = _fields(cls)
    if strict:
        unknown = set(value) - {key for _, key, _, _ in fields}
        if unknown:
            raise ModelError(f"{where}: {cls.__name__} has no field {', '.join(sorted(unknown))}")
    arguments: Dict[str, Any] = {}
    for name, key, annotation, required in fields:
        if key in value:
            arguments[name] = from_json(annotation, value[key], strict, f"{where}.{key}")
        elif required:
            raise ModelError(f"{where}: {cls.__name__} lacks its required field {key}")
    if observer is not None:
        observer(cls, tuple(value))
    return cls(**arguments)


def to_json(value: Any) -> str:
    """A request body as JSON text: datetimes in RFC 3339, dataclasses by their JSON keys."""
    return json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: _plain(getattr(value, name)) for name, key, _, _ in _fields(type(value))}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
