"""git's ref files read without git bindings: the loose ones under a folder, and ``packed-refs``
searched for the refs under a prefix. The git provider lists memory's refs with them, and the
delivery hook, which imports no bindings, fingerprints them with them.

A big repository packs tens of thousands of tags and remote branches into that file (1.5 MB
for 25,000). Splitting it into lines to keep memory's few cost the hook 15.5 ms at every
prompt on a shared machine; searching for the prefix, a pass of ``bytes.find``, 0.9 ms.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hook imports this module: nothing more than it needs
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_HEX = b"0123456789abcdef"
_LARGEST = 4096  # bytes of a loose ref read: an id and a newline, or ``ref: `` and a name


def loose_refs(folder: str, prefix: str, skip: tuple[str, ...] = (),
               walked: Callable[[str], object] | None = None) -> Iterator[tuple[str, bytes | None]]:
    """(name, bytes) of every file under ``folder``, whose names start with ``prefix``; the
    bytes are None when the file cannot be read (deleted meanwhile). A folder that is not
    there (yet, or any more) holds none; nor does one whose refs' names start with one of
    ``skip`` (such as ``refs/memory/sync/``), which is not walked. ``walked`` is told each
    folder's path before it is listed (``folder`` first, even when it is not there)."""
    if walked is not None:
        walked(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if f"{prefix}{entry.name}/" not in skip:
                yield from loose_refs(entry.path, f"{prefix}{entry.name}/", skip, walked)
        elif entry.is_file(follow_symlinks=False):
            try:
                fd = os.open(entry.path, os.O_RDONLY)
            except OSError:
                yield prefix + entry.name, None
                continue
            try:
                yield prefix + entry.name, os.read(fd, _LARGEST)
            except OSError:
                yield prefix + entry.name, None
            finally:
                os.close(fd)


def packed_under(data: bytes, prefix: str) -> list[tuple[bytes, bytes]]:
    """(object id, name) of each ref line of a ``packed-refs`` file's bytes whose name starts
    with ``prefix``, in the file's order. A line is ``<id> <name>``, and a name never holds a
    space, so `` <prefix>`` starts a name wherever it is found after an id that starts a line;
    anything else (the header, a peeled ``^<id>`` line, a damaged line) is passed over."""
    found, key = [], b" " + prefix.encode()
    at = data.find(key)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        oid = data[start:at]
        if len(oid) in (40, 64) and not oid.strip(_HEX):
            found.append((oid, data[at + 1:end].rstrip(b"\r")))
        at = data.find(key, end)
    return found
