"""The examples run as a user runs them, against the real server, and succeed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BASE_URL, new_org

EXAMPLES = sorted((Path(__file__).parents[2] / "clients" / "python" / "examples").glob("[0-9][0-9]_*.py"))


def test_there_are_the_four_examples() -> None:
    assert [e.name[:2] for e in EXAMPLES] == ["01", "02", "03", "04"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_example_runs(example: Path) -> None:
    env = {**os.environ, "IPAM_BASE_URL": BASE_URL, "IPAM_API_KEY": new_org("pro")["key"]}
    done = subprocess.run([sys.executable, str(example)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout
    if example.name.startswith("04"):
        assert "verified ping" in done.stdout
