"""Reading untrusted input: bounded lines and files, no hangs on FIFOs, no tracebacks."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitstore.cli import main
from gitstore.errors import InvalidInput
from gitstore.records import inputs
from gitstore.records.inputs import bounded_lines, open_untrusted, read_file

from .conftest import ROOT


@given(st.binary(max_size=60).map(lambda b: b.replace(b"x", b"\n")), st.integers(1, 9))
def test_bounded_lines_split_as_split_does_whatever_the_block_size(data: bytes, block: int) -> None:
    expected = data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()  # a final newline ends the last line; it does not start another
    assert list(bounded_lines(io.BytesIO(data), "in", block=block)) == expected


@given(st.integers(1, 40), st.integers(1, 9))
def test_a_line_over_the_bound_is_refused_whatever_the_block_size(length: int, block: int) -> None:
    data = b"ok\n" + b"a" * length + b"\nafter\n"
    if length > 10:
        with pytest.raises(InvalidInput, match=r"^in:2: line longer than 10 bytes"):
            list(bounded_lines(io.BytesIO(data), "in", 10, block=block))
    else:
        assert list(bounded_lines(io.BytesIO(data), "in", 10, block=block))[1] == b"a" * length


def test_read_file_refuses_more_than_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    assert read_file(path, 11) == b"x" * 11
    with pytest.raises(InvalidInput, match="more than 10 bytes"):
        read_file(path, 10)


def test_an_endless_device_is_refused_after_the_bound() -> None:
    with pytest.raises(InvalidInput, match="/dev/zero: more than 1 MiB"):
        read_file("/dev/zero", 1 << 20)


def test_a_fifo_nothing_writes_to_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "FIFO_WAIT_SECONDS", 0.1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInput, match="is a FIFO that nothing writes to"):
        open_untrusted(fifo)


def test_a_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(b'{"a": 1}')

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_file(fifo, 100) == b'{"a": 1}'
    finally:
        writer.join()


def test_folders_and_missing_files_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is a directory"):
        open_untrusted(tmp_path)
    with pytest.raises(InvalidInput, match="no such file"):
        open_untrusted(tmp_path / "missing")


# -- through the commands ------------------------------------------------------------------

HUGE_INTEGER = b'{"schema": "gitstore.grant/v1", "n": ' + b"9" * 5000 + b"}"


@pytest.mark.parametrize("command", [["canonical"], ["digest"], ["validate"]])
def test_integers_beyond_python_s_digit_limit_are_one_line(command: list[str], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_bytes(HUGE_INTEGER)
    code = main([*command, str(path)])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert code == 1 and "5000 digits" in text and "Traceback" not in text


@pytest.mark.parametrize("command", [["canonical"], ["digest"], ["validate"], ["scan"]])
def test_endless_input_is_refused_in_one_line(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*command, "/dev/zero"])
    captured = capsys.readouterr()
    assert code == 1 and "/dev/zero: more than" in captured.out + captured.err


UNREADABLE = "/proc/self/mem"  # a regular file whose first read fails (EIO): nothing is mapped at 0


@pytest.mark.skipif(not os.path.exists(UNREADABLE), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", [["canonical"], ["digest"], ["validate"], ["scan"], ["records", "add"]])
def test_a_file_that_fails_to_read_is_named_in_one_line(command: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    _initialised(tmp_path / "repo", monkeypatch)
    capsys.readouterr()
    code = main([*command, UNREADABLE])
    captured = capsys.readouterr()
    said = (captured.out + captured.err).strip().splitlines()
    assert code == 1 and len(said) == 1, said
    assert said[0].endswith(f"{UNREADABLE}: Input/output error"), said


@pytest.mark.parametrize("command", [["canonical"], ["digest"], ["validate"], ["scan"], ["records", "add"],
                                     ["import", "reviews"]])
def test_commands_do_not_hang_on_a_fifo(command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(inputs, "FIFO_WAIT_SECONDS", 0.1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _initialised(tmp_path / "repo", monkeypatch)
    code = main([*command, str(fifo)])
    captured = capsys.readouterr()
    assert code in (1, 2), captured
    assert "nothing writes to" in captured.out + captured.err or "not a file" in captured.err


def _initialised(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    monkeypatch.chdir(path)
    assert main(["init"]) == 0


LINE = 50 << 20


@pytest.mark.parametrize("command", ["records add --seal", "validate", "digest"])
def test_a_fifty_megabyte_line_is_refused_in_bounded_memory(command: str, tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as out:
        out.write(b'{"a": "')
        out.write(b"x" * LINE)
        out.write(b'"}\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    script = (
        "import resource, sys\n"
        "from gitstore.cli import main\n"
        "main(['init'])\n"
        f"code = main({command.split()!r} + [{str(path)!r}])\n"
        # VmHWM is this process's own peak; ru_maxrss also counts the pages of the pytest worker
        # it was forked from (Linux keeps the larger across exec), so it grows with the suite
        "status = open('/proc/self/status').read() if sys.platform == 'linux' else ''\n"
        "peak = int(status.split('VmHWM:')[1].split()[0]) if 'VmHWM:' in status "
        "else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(code, peak)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    code, peak_kib = done.stdout.split()[-2:]
    assert code == "1", done.stderr
    said = done.stderr or done.stdout.splitlines()[-2]  # validate reports on standard output
    assert "longer than 16 MiB" in said or "more than 16 MiB" in said
    assert said.strip().count("\n") == 0
    assert int(peak_kib) < 200 * 1024, f"peak {int(peak_kib) // 1024} MiB"
