"""The contracts ship inside the package: a user who only installed the wheel can validate."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import CONTRACTS, ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once."""
    folder = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    [built] = folder.glob("gitstore-*.whl")
    return built


def test_the_wheel_carries_the_contracts_and_hook_adapters(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in CONTRACTS.glob("*.schema.json"):
        assert f"gitstore/_contracts/v1/{schema.name}" in names
    assert "gitstore/_contracts/v1/examples/invalid/index.json" in names
    assert "gitstore/py.typed" in names
    assert any(n.startswith("gitstore/_hooks/") for n in names)
    assert "gitstore/_precommit/hooks.yaml" in names


GATES = ("records", "promotion", "okf", "skills", "scan")


def test_the_wheel_carries_the_gates_as_gitstore_validators(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert {f"gitstore_validators/{gate}.py" for gate in GATES} <= names
    assert not {n for n in names if n.startswith("validators/")}
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    scripts = archive.read(entry_points).decode()
    for gate in GATES:
        assert f"gitstore-{gate} = gitstore_validators.{gate}:main" in scripts


def test_the_editable_install_runs_the_gates_and_shadows_no_validators_package(tmp_path: Path) -> None:
    """In a development install the checkout is on the path; its validators/ folder has no
    __init__.py, so a real package named validators (another project's) always wins."""
    bin_dir = Path(sys.executable).parent
    for gate in GATES:
        assert (bin_dir / f"gitstore-{gate}").is_file(), gate
    assert not (ROOT / "validators" / "__init__.py").exists()
    other = tmp_path / "site" / "validators"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("ORIGIN = 'the package index'\n")
    probe = "import validators, gitstore_validators.okf as v; print(validators.ORIGIN, v.main.__module__)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path / "site"), "PATH": str(bin_dir)})
    assert done.stdout.strip() == "the package index gitstore_validators.okf", done.stderr
    helped = subprocess.run([str(bin_dir / "gitstore-okf"), "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: gitstore-okf")


@pytest.mark.parametrize("target,runs", [("test", "-m pytest"), ("demo", "-m tools.demo"), ("bench", "-m bench")])
def test_each_make_target_creates_the_virtual_environment_it_needs_when_it_is_missing(target: str, runs: str,
                                                                                      tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / ".venv"
    outer = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")  # under `make test` (as CI runs) this is a sub-make
    env = {k: v for k, v in os.environ.items() if k not in outer}
    done = subprocess.run(["make", "--no-print-directory", "-n", target, f"VENV={venv}", "KEEP=1"], cwd=ROOT,
                          capture_output=True, text=True, check=True, env=env)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"test -x {venv}/bin/python || python3 -c "), lines  # python3 new enough: named if not
    made = lines.index(f"test -x {venv}/bin/python || python3 -m venv {venv}")
    assert lines[made + 1].startswith(f"{venv}/bin/python -c "), lines  # and so is a venv an older one made
    install = lines.index(f"{venv}/bin/python -m pip install --quiet -e '.[dev]'")
    assert made < install
    [run] = [n for n, line in enumerate(lines) if f"{venv}/bin/python {runs}" in line]
    assert install < run
    assert target != "demo" or lines[run].startswith("KEEP=1 "), "make demo KEEP=1 keeps its folder"
