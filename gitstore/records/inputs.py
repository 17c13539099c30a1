"""Reading input nobody vouches for: bounded, streamed, and never waiting forever.

Files given on the command line may be anything: a FIFO nothing writes to (``open`` would block
for ever), an endless device (``/dev/zero``), a single line of fifty megabytes, a folder. Every
reader here refuses such input with one line naming the file and what is wrong, after reading at
most the bound it was given, so a hostile file costs neither a hang nor unbounded memory.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from gitstore.errors import InvalidInput

# The largest record v1 allows is an audit entry naming 100,000 digests (about 7 MiB canonical);
# no legitimate record line comes near this bound.
MAX_RECORD_BYTES = 16 << 20
# How long a FIFO may stay without a writer before it is refused (a pipe from a running
# process, such as bash's <(...), is readable as soon as its writer produces or exits).
FIFO_WAIT_SECONDS = 3.0
_BLOCK = 1 << 20


def open_untrusted(path: str | Path) -> BinaryIO:
    """``path`` opened for reading bytes; refuses folders, missing files and idle FIFOs."""
    name = str(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InvalidInput(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InvalidInput(f"{name}: is a directory") from None
    except OSError as exc:
        raise InvalidInput(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InvalidInput(f"{name}: is a directory")
        if stat.S_ISFIFO(mode):
            _wait_for_writer(fd, name)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (through links) that a repository holds, such as AGENTS.md
    or a wiki page. Anything else is refused at once with ``OSError`` naming it, never waited
    on: a FIFO (which would block until something writes to it), a device, a folder
    (``IsADirectoryError``). A missing file is ``FileNotFoundError``, as ``open`` says it. With
    ``limit``, a file of more bytes is refused (``InvalidInput``) once that many are read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as source:
            fd = -1
            return source.read() if limit is None else read_bounded(source, limit, str(path))
    finally:
        if fd >= 0:
            os.close(fd)


def _wait_for_writer(fd: int, name: str) -> None:
    readable, _, _ = select.select([fd], [], [], FIFO_WAIT_SECONDS)
    if not readable:
        raise InvalidInput(f"{name}: is a FIFO that nothing writes to (waited {FIFO_WAIT_SECONDS:g} s)")


def read_bounded(source: BinaryIO, limit: int, name: str) -> bytes:
    """All of ``source``, refusing it once it holds more than ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while chunk := _read(source, min(_BLOCK, limit + 1 - size), name):
        size += len(chunk)
        if size > limit:
            raise InvalidInput(f"{name}: more than {_size(limit)}; refusing to read on")
        chunks.append(chunk)
    return b"".join(chunks)


def read_file(path: str | Path, limit: int) -> bytes:
    """The bytes of a file given by a person, at most ``limit`` of them."""
    with open_untrusted(path) as source:
        return read_bounded(source, limit, str(path))


def bounded_lines(source: BinaryIO, name: str, max_line: int = MAX_RECORD_BYTES,
                  block: int = _BLOCK) -> Iterator[bytes]:
    """The lines of ``source`` without their ``\\n``, read a block at a time; a line longer than
    ``max_line`` is refused as soon as it is, without holding more of it. A last line without
    its newline counts too."""
    rest: list[bytes] = []  # the start of a line that began in an earlier block
    held = 0
    number = 0
    while data := _read(source, block, name):
        if b"\n" not in data:
            held += len(data)
            if held > max_line:
                raise InvalidInput(f"{name}:{number + 1}: line longer than {_size(max_line)}")
            rest.append(data)
            continue
        lines = data.split(b"\n")
        if rest:
            rest.append(lines[0])
            lines[0] = b"".join(rest)
        last = lines.pop()
        for line in lines:
            number += 1
            if len(line) > max_line:
                raise InvalidInput(f"{name}:{number}: line longer than {_size(max_line)}")
            yield line
        rest, held = [last], len(last)
    if rest and rest != [b""]:
        line = b"".join(rest)
        if len(line) > max_line:
            raise InvalidInput(f"{name}:{number + 1}: line longer than {_size(max_line)}")
        yield line


def _read(source: BinaryIO, size: int, name: str) -> bytes:
    """Up to ``size`` bytes of ``source``; a failed read is refused naming what was read
    (the error alone, "Input/output error", does not say which file)."""
    try:
        return source.read(size)
    except OSError as exc:
        raise InvalidInput(f"{name}: {exc.strerror or exc}") from None


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


__all__ = ["FIFO_WAIT_SECONDS", "MAX_RECORD_BYTES", "bounded_lines", "open_untrusted", "read_bounded",
           "read_file", "read_regular"]
