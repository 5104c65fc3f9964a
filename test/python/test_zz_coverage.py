"""Runs last (file order): every operation of openapi/openapi.json was called through the SDK by the tests
before it and its answer read into its model, and every field of every schema has its place in a model.
Computed from the document, so an operation or a field added to it fails here until it is covered."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, Set

import ipam_sdk
from ipam_sdk._generated import models
from ipam_sdk._convert import _fields

from conftest import SEEN

DOCUMENT: Dict[str, Any] = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())

#: Operations whose success needs a server these tests do not run: each is called, and its typed error (a 502
#: or 503 the document declares) is the answer read. Listed by name, so the set cannot grow silently.
ERROR_ANSWER_ONLY: Dict[str, str] = {}
if not os.environ.get("IPAM_TEST_TLS_SITE"):
    ERROR_ANSWER_ONLY["checkSslCertificate"] = "a TLS site with a trusted certificate (openssl makes it)"
    ERROR_ANSWER_ONLY["checkHttp2Support"] = "a TLS site speaking HTTP/2 (openssl makes it)"

if not shutil.which("traceroute"):
    ERROR_ANSWER_ONLY["traceRoute"] = "the traceroute program (CI installs it)"


def document_operations() -> Set[str]:
    return {
        operation["operationId"]
        for item in DOCUMENT["paths"].values()
        for method, operation in item.items()
        if isinstance(operation, dict) and "operationId" in operation
    }


def test_every_operation_was_called_and_its_answer_read() -> None:
    operations = document_operations()
    assert operations == set(ipam_sdk.OPERATIONS), "the SDK is stale: run npm run sdk"
    never_called = sorted(operations - set(SEEN))
    assert never_called == [], f"operations never called through the SDK: {never_called}"
    succeeded = {op for op, statuses in SEEN.items() if any(200 <= s < 400 for s in statuses)}
    without_success = sorted(operations - succeeded - set(ERROR_ANSWER_ONLY))
    assert without_success == [], f"operations never answered with success: {without_success}"
    stale = sorted(set(ERROR_ANSWER_ONLY) & succeeded)
    assert stale == [], f"these succeed now: remove them from ERROR_ANSWER_ONLY: {stale}"
    print(f"\n{len(succeeded)} of {len(operations)} operations answered with success and read into their model; "
          f"{len(ERROR_ANSWER_ONLY)} with their typed error only: {sorted(ERROR_ANSWER_ONLY)}")


def model_keys(model: Any) -> Set[str]:
    if dataclasses.is_dataclass(model):
        return {key for _, key, _, _ in _fields(model)}
    return set(model.__required_keys__) | set(model.__optional_keys__)


def test_every_schema_and_field_has_its_model() -> None:
    schemas: Dict[str, Any] = DOCUMENT["components"]["schemas"]
    by_schema: Dict[str, list] = {}
    for python_name, schema_name in models.SCHEMA_NAMES.items():
        by_schema.setdefault(schema_name, []).append(getattr(models, python_name))
    missing = []
    for name, schema in schemas.items():
        if schema.get("type") == "object" and schema.get("properties"):
            if name not in by_schema:
                missing.append(f"{name}: no model")
            for model in by_schema.get(name, []):
                lacking = set(schema["properties"]) - model_keys(model)
                missing += [f"{name}.{key}: not in {model.__name__}" for key in sorted(lacking)]
        elif not hasattr(models, name if name != "ApiError" else "ApiErrorBody"):
            missing.append(f"{name}: no type alias")
    assert missing == []
    print(f"\n{len(schemas)} schemas, each with its model; {sum(len(s.get('properties', {})) for s in schemas.values())} fields")
