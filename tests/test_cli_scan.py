"""``gitstore scan`` through the real console script: paths from the repository's root and the
repository's own allow list."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import shared

KEY = shared("secrets", "fake-leaks", "pki", "valid", "private.key").read_text()
LINE = KEY[: KEY.index("-----BEGIN")].count("\n") + 1


def scan(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitstore", "scan", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True)


def findings(done: subprocess.CompletedProcess[str]) -> list[list[dict[str, object]]]:
    assert done.returncode == 0, done.stderr
    return [f["findings"] for f in json.loads(done.stdout)["files"]]


def test_a_file_is_scanned_as_the_content_of_its_path(repo: Path) -> None:
    (repo / "tests" / "fixtures").mkdir(parents=True)
    (repo / "tests" / "fixtures" / "server.key").write_text(KEY)
    (repo / "deploy").mkdir()
    (repo / "deploy" / "server.key").write_text(KEY)
    found = findings(scan(repo / "deploy", "--json", "server.key", "../tests/fixtures/server.key"))
    assert found == [[{"kind": "pem-private-key", "action": "redact", "count": 1}], []]
    assert findings(scan(repo, "--json", "-", stdin=KEY)) == [
        [{"kind": "pem-private-key", "action": "redact", "count": 1}]]  # standard input has no place


def test_the_repositorys_allow_list_is_honoured(repo: Path) -> None:
    (repo / "keys").mkdir()
    (repo / "keys" / "ci.key").write_text(KEY)
    (repo / "keys" / "prod.key").write_text(KEY)
    (repo / ".gitstore-allow").write_text(f"# the CI key is public\nkeys/ci.key:pem-private-key:{LINE}\n")
    done = scan(repo / "keys", "ci.key", "prod.key")
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["ci.key: clean", "prod.key: redact pem-private-key x1"]


def test_a_malformed_allow_list_is_a_one_line_error(repo: Path) -> None:
    (repo / "a.txt").write_text("hello\n")
    (repo / ".gitstore-allow").write_text("keys/ci.key pem-private-key 3\n")
    done = scan(repo, "a.txt")
    assert done.returncode == 1
    assert done.stderr == "gitstore: error: .gitstore-allow:1: expected PATH:KIND:LINE, got 'keys/ci.key pem-private-key 3'\n"


def test_outside_a_repository_the_path_is_the_files_own(tmp_path: Path) -> None:
    lib = tmp_path / "usr" / "lib64"
    lib.mkdir(parents=True)
    (lib / "libssh.so.4").write_text(KEY)
    (tmp_path / "id_rsa").write_text(KEY)
    assert findings(scan(tmp_path, "--json", "usr/lib64/libssh.so.4", "id_rsa")) == [
        [], [{"kind": "pem-private-key", "action": "redact", "count": 1}]]
