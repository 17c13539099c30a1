"""The contract commands through the real console script: canonical, digest, validate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from . import cli
from .conftest import CONTRACTS, shared

INVALID = json.loads((CONTRACTS / "examples" / "invalid" / "index.json").read_text())


def gitstore(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return cli.gitstore(*args, stdin=stdin, cwd=cwd, text=False)


@pytest.mark.parametrize("name", ["arrays", "french", "structures", "unicode", "values", "weird"])
def test_canonical_matches_rfc8785_vectors(name: str) -> None:
    done = gitstore("canonical", str(shared("rfc8785", "input", f"{name}.json")))
    assert done.returncode == 0, done.stderr
    assert done.stdout == shared("rfc8785", "output", f"{name}.json").read_bytes()


def test_canonical_reads_stdin_without_trailing_newline() -> None:
    done = gitstore("canonical", "-", stdin=b'{"b": 1, "a": [true, null]}')
    assert done.stdout == b'{"a":[true,null],"b":1}'


def test_without_a_file_canonical_and_digest_read_standard_input() -> None:
    assert gitstore("canonical", stdin=b'{"b": 1, "a": [true, null]}').stdout == b'{"a":[true,null],"b":1}'
    grant = (CONTRACTS / "examples" / "valid" / "grant.json").read_bytes()
    assert gitstore("digest", stdin=grant).stdout.decode().strip() == json.loads(grant)["digest"]
    refused = gitstore("canonical", stdin=b'{"a": 1, "a": 2}')
    assert refused.returncode == 1 and refused.stderr == b"gitstore: error: duplicate member name 'a'\n"


def test_digest_prints_the_kind_digest() -> None:
    for path in sorted((CONTRACTS / "examples" / "valid").glob("*.json")):
        done = gitstore("digest", str(path))
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().strip() == json.loads(path.read_text())["digest"]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_records_exit_1_with_one_line(name: str) -> None:
    done = gitstore("digest", str(CONTRACTS / "examples" / "invalid" / name))
    assert done.returncode == 1
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("gitstore: error: ")
    assert INVALID[name]["error"] in err
    assert "Traceback" not in err


def test_a_refused_file_is_named_in_the_error_and_standard_input_is_not(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_bytes(b"{}")
    (tmp_path / "binary.dat").write_bytes(b"\xff")
    for command, name in [("digest", "empty.json"), ("canonical", "binary.dat")]:
        done = gitstore(command, name, cwd=tmp_path)
        assert done.returncode == 1 and done.stderr.decode().startswith(f"gitstore: error: {name}: "), done.stderr
        done = gitstore(command, "-", stdin=(tmp_path / name).read_bytes(), cwd=tmp_path)
        assert done.returncode == 1 and name not in done.stderr.decode(), done.stderr


@pytest.mark.parametrize("command, says", [("validate", "invalid {}: record has no"), ("scan", "{}: clean")])
def test_a_file_name_with_a_line_break_stays_on_its_report_line(tmp_path: Path, command: str, says: str) -> None:
    """One line per finding: a name holding a line break split it in two, the second line
    starting with what reads as another file's name."""
    (tmp_path / "a\nb.json").write_bytes(b"{}\n")
    done = cli.gitstore(command, "a\nb.json", cwd=tmp_path)
    assert done.stdout.count("\n") == 1 and done.stdout.startswith(says.format("a\u2424b.json")), done.stdout


def test_validate_reports_and_exit_codes(tmp_path: Path) -> None:
    valid = sorted(str(p) for p in (CONTRACTS / "examples" / "valid").glob("*.json"))
    done = gitstore("validate", *valid)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().count("\nok ") + 1 == len(valid)

    bad = CONTRACTS / "examples" / "invalid" / "grant-unknown-field.json"
    done = gitstore("validate", "--json", valid[0], str(bad))
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert [r["ok"] for r in report["records"]] == [True, False]
    assert "Additional properties" in report["records"][1]["error"]


@pytest.mark.parametrize("reference", [[], ["--reference"]], ids=["fast", "reference"])
def test_validate_refuses_a_record_dated_on_a_day_the_calendar_lacks(reference: list[str]) -> None:
    """``gitstore grant`` refuses 2026-02-31; so does ``validate`` on a record carrying it."""
    done = gitstore("validate", *reference, str(CONTRACTS / "examples" / "invalid" / "grant-time-not-a-date.json"))
    assert done.returncode == 1
    assert "$.from" in done.stdout.decode() + done.stderr.decode()


def test_validate_json_lines_and_reference(tmp_path: Path) -> None:
    lines = [json.dumps(json.loads(p.read_text())) for p in (CONTRACTS / "examples" / "valid").glob("*.json")]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = gitstore("validate", "--reference", "--json", str(path))
    assert done.returncode == 0, done.stdout
    assert len(json.loads(done.stdout)["records"]) == len(lines)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["digest", "does-not-exist.json"], 1, "does-not-exist.json: no such file"),
        (["digest", "."], 1, ".: is a directory"),  # the README's exit 1: a file named that is a folder
        (["digest", "a", "b"], 2, "unexpected extra argument"),
        (["no-such-command"], 2, "no such command"),
    ],
)
def test_usage_and_missing_files(args: list[str], code: int, message: str) -> None:
    done = gitstore(*args)
    assert done.returncode == code
    assert message in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


def test_version_and_help_on_every_command() -> None:
    assert gitstore("--version").stdout.decode().startswith("gitstore ")
    for command in ["canonical", "digest", "validate"]:
        done = gitstore(command, "--help")
        assert done.returncode == 0 and b"Usage" in done.stdout
