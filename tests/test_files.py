"""Writing a local file whole or not at all (``gitstore._files``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore._files import new_file, replace_file

WRITE = "import sys; from gitstore._files import replace_file; replace_file(sys.argv[1], b'x' * 4096)"


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))  # a disk about to fill


def test_a_file_is_replaced_whole_with_the_mode_asked(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    replace_file(path, "é\n", 0o600)
    assert path.read_bytes() == "é\n".encode() and path.stat().st_mode & 0o077 == 0
    replace_file(path, b"new")
    assert path.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_write_refused_part_way_keeps_the_old_file_names_it_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    done = subprocess.run([sys.executable, "-c", WRITE, str(path)], capture_output=True, text=True,
                          preexec_fn=_limited, timeout=60)
    assert done.returncode == 1 and f"OSError: [Errno 27] File too large: '{path}'" in done.stderr
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_write_refused_at_its_temporary_file_names_the_file_it_was_for(tmp_path: Path) -> None:
    import pytest

    from gitstore._files import temporary_name

    path = tmp_path / "report.json"
    Path(temporary_name(path)).mkdir()  # the temporary file cannot be made, as in a read-only folder
    with pytest.raises(IsADirectoryError) as refused:
        replace_file(path, "{}")
    assert refused.value.filename == str(path) and not path.exists()


def test_a_new_file_is_its_makers_alone_and_never_one_already_there(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fd, path = new_file(str(tmp_path), "hook-claude-code-", ".json")
    with os.fdopen(fd, "w") as out:
        out.write("{}")
    name = os.path.basename(path)
    assert os.path.dirname(path) == str(tmp_path) and name.startswith("hook-claude-code-") and name.endswith(".json")
    assert Path(path).read_text() == "{}" and Path(path).stat().st_mode & 0o077 == 0
    (tmp_path / "link-0000000000000000.json").symlink_to(tmp_path / "elsewhere.json")
    monkeypatch.setattr(os, "urandom", lambda n: bytes(n))  # every name drawn is the link's
    with pytest.raises(FileExistsError):
        new_file(str(tmp_path), "link-", ".json")
    assert not (tmp_path / "elsewhere.json").exists(), "the link was not followed"
