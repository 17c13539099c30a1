"""The contracts ship inside the package: a user who only installed the wheel can validate."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from .conftest import CONTRACTS, ROOT


def test_the_wheel_carries_the_contracts_and_hook_adapters(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = tmp_path.glob("gitstore-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in CONTRACTS.glob("*.schema.json"):
        assert f"gitstore/_contracts/v1/{schema.name}" in names
    assert "gitstore/_contracts/v1/examples/invalid/index.json" in names
    assert "gitstore/py.typed" in names
    assert any(n.startswith("gitstore/_hooks/") for n in names)
