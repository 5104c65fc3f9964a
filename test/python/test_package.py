"""The package is what the document generates, and mypy --strict accepts it and its examples."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "clients" / "python"


def test_the_generated_code_is_current() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "_generated"
        subprocess.run([sys.executable, str(PACKAGE / "generate.py"), "--out", str(out)], check=True, capture_output=True)
        committed = PACKAGE / "ipam_sdk" / "_generated"
        names = sorted(p.name for p in out.iterdir())
        assert sorted(p.name for p in committed.glob("*.py")) == names
        _, mismatch, errors = filecmp.cmpfiles(committed, out, names, shallow=False)
        assert mismatch + errors == [], "clients/python/ipam_sdk/_generated is stale: run npm run sdk"


def test_mypy_strict_accepts_the_package_and_its_examples() -> None:
    # A cache outside the tree: the second database's run reuses the first's.
    cache = Path(tempfile.gettempdir()) / "ipam-sdk-mypy-cache"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), "ipam_sdk", "examples"],
        cwd=PACKAGE, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_pip_installs_it_offline_into_a_fresh_environment() -> None:
    # The tests run with clients/python on PYTHONPATH: the fresh environment must not see it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as scratch:
        venv = Path(scratch) / "venv"
        # Debian's setuptools from the system (no index, no build isolation): an offline install.
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation"]
        # From a copy: setuptools builds in the source tree (build/, *.egg-info), which stays clean so.
        source = Path(scratch) / "ipam-sdk"
        shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".mypy_cache"))
        subprocess.run(pip + [str(source)], check=True, capture_output=True, cwd=scratch, env=env)
        probe = "import ipam_sdk, importlib.resources as r; print(ipam_sdk.__file__, r.files('ipam_sdk').joinpath('py.typed').is_file())"
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True, cwd=scratch, env=env
        )
        assert str(venv) in done.stdout and done.stdout.strip().endswith("True")
