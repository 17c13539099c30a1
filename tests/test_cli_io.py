"""The CLI's output helpers: a list printed a few thousand values at a time reads as one; output
into a pipe whose reader is gone ends the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from gitstore.cli._io import JSON_CHUNK, echo_lines, emit_json, emit_json_array

from .world import ready_repo


def _value(n: int) -> dict[str, object]:
    return {"n": n, "kind": "event", "text": f"line {n} \u00e9\u2028", "nested": {"b": [n, None], "a": True}}


@pytest.mark.parametrize("count", [0, 1, 2, JSON_CHUNK - 1, JSON_CHUNK, JSON_CHUNK + 1, 2 * JSON_CHUNK + 3])
def test_a_list_printed_in_chunks_is_the_list_printed_at_once(capsys: pytest.CaptureFixture[str], count: int) -> None:
    values = [_value(n) for n in range(count)]
    emit_json(values)
    whole = capsys.readouterr().out
    emit_json_array(iter(values))
    assert capsys.readouterr().out == whole


@pytest.mark.parametrize(("count", "chunk"), [(0, 3), (3, 3), (4, 3), (10, 1), (10, 4)])
def test_a_list_printed_in_chunks_of_any_size_is_the_list_printed_at_once(
        capsys: pytest.CaptureFixture[str], count: int, chunk: int) -> None:
    values = [_value(n) for n in range(count)]
    emit_json(values)
    whole = capsys.readouterr().out
    emit_json_array(iter(values), chunk)
    assert capsys.readouterr().out == whole


def test_values_orjson_refuses_are_printed_as_json_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    values = [_value(n) for n in range(JSON_CHUNK + 2)]
    values[JSON_CHUNK + 1]["big"] = 2**70  # beyond 64 bits: the second chunk goes through json
    emit_json(values)
    whole = capsys.readouterr().out
    emit_json_array(iter(values))
    assert capsys.readouterr().out == whole and str(2**70) in whole


def test_a_list_whose_values_fail_part_way_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    def values() -> Iterator[dict[str, object]]:
        for n in range(JSON_CHUNK + 10):
            yield _value(n)
        raise RuntimeError("a damaged record")

    with pytest.raises(RuntimeError):
        emit_json_array(values())
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("count", [0, 1, JSON_CHUNK, JSON_CHUNK + 1])
def test_lines_printed_in_batches_are_the_lines_printed_one_by_one(
        capsys: pytest.CaptureFixture[str], count: int) -> None:
    lines = [f"sha256:{n:064x} event shared stream-{n}" for n in range(count)]
    for line in lines:
        typer.echo(line)
    one_by_one = capsys.readouterr().out
    echo_lines(iter(lines))
    assert capsys.readouterr().out == one_by_one


@pytest.mark.parametrize("command", [["status"], ["episodes"], ["records", "list"], ["grants"], ["audit"],
                                     ["verify"], ["doctor"], ["status", "--json"], ["--help"], ["--version"]])
def test_a_closed_output_pipe_ends_the_command_quietly_with_0(tmp_path: Path, command: list[str]) -> None:
    """As ``git log | head`` does: the reader went away, which is no failure of the command."""
    root = ready_repo(tmp_path / "widgets").workspace.root
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write meets a closed pipe
    try:
        done = subprocess.run([sys.executable, "-m", "gitstore", *command], cwd=root, stdout=write_end,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize("command", [["--help"], ["--version"], ["records"], ["completion", "bash"]])
def test_output_to_a_full_disk_is_one_line_and_exit_1(tmp_path: Path, command: list[str]) -> None:
    """Unlike a reader gone away, a write that fails (no space left) leaves output the caller
    asked for missing: one line says so, exit 1. The help, the version and a group's help
    printed a traceback there."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "gitstore", *command], cwd=tmp_path, stdout=full,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    assert (done.returncode, done.stderr) == (1, b"gitstore: error: No space left on device\n"), done.stderr


def test_a_file_name_that_is_not_utf8_prints_as_its_bytes_and_keeps_json_valid(tmp_path: Path) -> None:
    """On a terminal whose encoding refuses what is not UTF-8 (PYTHONIOENCODING=utf-8:strict, as
    a UTF-8 locale sets it), a file name with a byte such as 0xff is printed as its own bytes,
    and under --json escaped, so the output is still one JSON document in UTF-8."""
    import json

    name = os.fsencode(tmp_path) + b"/n\xffame.json"
    with open(name, "wb") as out:
        out.write(b"{}\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    root = ready_repo(tmp_path / "widgets").workspace.root

    def run(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "gitstore", *args, name], cwd=root, env=env,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=120)

    text = run("scan")
    assert (text.returncode, text.stdout, text.stderr) == (0, name + b": clean\n", b"")
    for args, code in ((["scan", "--json"], 0), (["validate", "--json"], 1)):
        done = run(*args)
        assert done.returncode == code and done.stderr == b"", done.stderr
        report = json.loads(done.stdout.decode("utf-8"))
        files = report["files"] if "files" in report else report["records"]
        assert files[0]["file"] == os.fsdecode(name)
    refused = run("records", "add", "--json")
    assert refused.returncode == 1 and refused.stdout == b""
    assert json.loads(refused.stderr.decode("utf-8"))["error"].startswith(os.fsdecode(name))
    missing = subprocess.run([sys.executable, "-m", "gitstore", "scan", name + b"-gone"], cwd=root, env=env,
                             capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    assert (missing.returncode, missing.stderr) == (1, b"gitstore: error: " + name + b"-gone: no such file\n"), \
        "an error names the file as standard output does (and git's errors do), not as \\udcff"


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_text_the_terminal_s_encoding_lacks_is_escaped_never_a_traceback(tmp_path: Path, encoding: str) -> None:
    """A terminal whose encoding is neither UTF-8 nor ASCII (a Latin-1 or Windows-1252 locale,
    or PYTHONIOENCODING) ended any command printing a character it lacks (a CJK file name, a
    captured "…") in a traceback. Each such character is written as its \\uXXXX escape, as
    standard error writes it, so text reads and --json stays one JSON document; a file name's
    byte that is not UTF-8 is still written as itself."""
    import json

    name = os.fsencode(tmp_path) + "/重试….json".encode() + b"\xff"
    with open(name, "wb") as out:
        out.write(b"{}\n")
    env = {**os.environ, "PYTHONIOENCODING": encoding}

    def run(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "gitstore", *args], cwd=tmp_path, env=env,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=120)

    escaped = os.fsencode(tmp_path) + "/重试….json".encode(encoding, "backslashreplace") + b"\xff"
    assert b"\\u91cd\\u8bd5" in escaped  # Windows-1252 has "…", Latin-1 has none of the three
    text = run("scan", name)
    assert (text.returncode, text.stdout, text.stderr) == (0, escaped + b": clean\n", b"")
    as_json = run("scan", "--json", name)
    assert as_json.returncode == 0 and as_json.stderr == b"", as_json.stderr
    assert json.loads(as_json.stdout.decode(encoding))["files"][0]["file"] == os.fsdecode(name)
