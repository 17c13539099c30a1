"""Where memory lives in git: the refs it is kept under, named by namespace and writer, and the
paths of records, payloads and redaction notes in their trees (``okf/wiki/store.md``)."""

from __future__ import annotations

import re

from gitstore._shown import bounded

PREFIX = "refs/memory/v1/"
QUARANTINE = "refs/memory/quarantine/"  # where sync holds a fetched ref it refused: never read
WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")
PAYLOAD_DIGEST = re.compile(rb'"payloadDigest":"(sha256:[0-9a-f]{64})"')  # in an event's canonical bytes

_DEEPEST = 9  # parts of the deepest name memory keeps: refs/memory/v1/remotes/<remote>/parted/shared/<writer>/<commit>

PARTED = "parted"  # see parted_ref
PARTED_PAYLOADS = "parted-payloads"  # see snapshot_of
_FETCHED_LINE = re.compile(r"^remotes/([^/]+)/(records/shared/([^/]+)|"
                           r"parted/shared/([a-z0-9][a-z0-9-]{0,63})/[0-9a-f]{40})$")
_PARTED_SNAPSHOT = re.compile(r"^remotes/[^/]+/parted-payloads/shared/[a-z0-9][a-z0-9-]{0,63}/[0-9a-f]{40}\Z")


def fetch_refspecs(remote: str) -> list[str]:
    """The refspecs that make plain ``git fetch`` bring shared memory too.

    Records are fast-forward only (a remote rewinding a writer is refused); payload snapshots
    are parentless, so they are forced.
    """
    return [
        f"{PREFIX}records/shared/*:{PREFIX}remotes/{remote}/records/shared/*",
        f"+{PREFIX}payloads/shared/*:{PREFIX}remotes/{remote}/payloads/shared/*",
    ]


GENERATED = 13  # characters of a writer id `init` makes: "w" and 12 hex digits (config.new_writer_id)
_COMMIT_PART = re.compile(r"^[0-9a-f]{40}\Z")


def shown_writer(writer: str, cut: bool = False) -> str:
    """A writer id read from a ref's name, for output: itself when it is one, else escaped and
    cut (``bounded``): whoever can push names refs, and every command may print them. ``cut``
    (a line about a quarantined or damaged ref, which whoever pushed it named): a writer id
    longer than ``init`` makes them is cut too, with its hash, for a valid id of 64 characters
    can read as a sentence (``ai-agents-reading-this-must-run-...``)."""
    if cut:
        short = len(writer) <= GENERATED and WRITER_PATTERN.match(writer)
        return writer if short else bounded(writer, GENERATED, whole=GENERATED)
    return writer if WRITER_PATTERN.match(writer) else bounded(writer)


def shown_ref(ref: str, cut: bool = False) -> str:
    """A ref's name for output, each part that is no writer id escaped and cut (``bounded``),
    and a name nested deeper than memory's refs go cut to one more part. ``cut``: each part
    from the writer's on (after its namespace) cut as ``shown_writer`` cuts it, but a commit id
    (a parted history's tip)."""
    split = ref.split("/")
    at = next((i + 1 for i, part in enumerate(split) if i >= 3 and part in ("shared", "local")), len(split))
    parts = [shown_writer(part, cut and i >= at and not _COMMIT_PART.match(part)) for i, part in enumerate(split)]
    if len(parts) > _DEEPEST:
        parts[_DEEPEST - 1:] = [bounded("/".join(split[_DEEPEST - 1:]))]
    return "/".join(parts)


def shown_where(where: str, message: str = "") -> tuple[str, str]:
    """Where verify found damage and what it found, for output: a ref's name shown cut
    (``shown_ref``) with what follows it kept (`` commit <sha>``: a ref's name holds no
    space), and the message quoting it as it is shown (``shown_in``); any other place as is."""
    if not where.startswith("refs/"):
        return where, message
    ref, space, tail = where.partition(" ")
    return shown_ref(ref, cut=True) + space + tail, shown_in(message, ref, cut=True)


def shown_in(text: str, ref: str, cut: bool = False) -> str:
    """``text`` (why ``ref`` was refused, saved by a sync that printed names as they were)
    with the ref's last part, when it is no writer id (or, with ``cut``, is one longer than
    ``init`` makes), shown as ``shown_writer`` shows it wherever the text quotes it."""
    last = ref.rsplit("/", 1)[-1]
    shown = shown_writer(last, cut)
    return text if shown == last or not last else text.replace(last, shown)


def records_ref(namespace: str, writer: str) -> str:
    return f"{PREFIX}records/{namespace}/{writer}"


def payloads_ref(namespace: str, writer: str) -> str:
    return f"{PREFIX}payloads/{namespace}/{writer}"


def record_path(kind: str, digest: str) -> str:
    """Where a record lives in a records tree."""
    hexd = digest.removeprefix("sha256:")
    return f"{kind}/{hexd[:2]}/{hexd[2:4]}/{hexd}.json"


def payload_path(payload_digest: str) -> str:
    hexd = payload_digest.removeprefix("sha256:")
    return f"{hexd[:2]}/{hexd[2:4]}/{hexd}.json"


def note_path(payload_digest: str) -> str:
    """Where a removed payload's redaction note is kept: in the records tree of the append that
    removed it (older stores kept it at the same path in a payload snapshot)."""
    return "notes/" + payload_path(payload_digest)


def parted_ref(fetched: str, tip: str) -> str:
    """Where a fetched writer's history is kept once the writer's ref parted from it (a history
    of the writer's that does not extend it took its place: a fork): beside the writer's fetched
    ref, named by its tip, ``refs/memory/v1/remotes/<remote>/parted/shared/<writer>/<tip>``. No
    fetch refspec names it, nor does sync push it; reads read it beside the writer's ref."""
    remote, _, writer = fetched[len(PREFIX + "remotes/"):].partition("/records/shared/")
    return f"{PREFIX}remotes/{remote}/{PARTED}/shared/{writer}/{tip}"


def fetched_line(ref: str) -> tuple[str, str, bool] | None:
    """(remote, writer, parted) for a fetched writer's records ref or a parted history of it
    (``parted_ref``); None for any other ref."""
    found = _FETCHED_LINE.match(ref[len(PREFIX):]) if ref.startswith(PREFIX) else None
    if found is None:
        return None
    parted = found.group(4) is not None
    return found.group(1), found.group(4) if parted else found.group(3), parted


def is_parted(ref: str) -> bool:
    """Whether ``ref`` is a parted history of a fetched writer (``parted_ref``)."""
    found = fetched_line(ref)
    return found is not None and found[2]


def snapshot_of(ref: str) -> str:
    """The payload snapshot a fetched writer's records ref is read with: the writer's fetched
    one, ``refs/memory/v1/remotes/<remote>/payloads/shared/<writer>``; for a parted history
    (``parted_ref``), the snapshot admitted for the writer when its ref parted from it,
    ``refs/memory/v1/remotes/<remote>/parted-payloads/shared/<writer>/<tip>``: the writer's
    snapshot owes nothing to a parted history, and one forced with the fork may drop its text."""
    remote, writer, parted = fetched_line(ref) or ("", "", False)
    if parted:
        return f"{PREFIX}remotes/{remote}/{PARTED_PAYLOADS}/shared/{writer}/{ref.rsplit('/', 1)[-1]}"
    return f"{PREFIX}remotes/{remote}/payloads/shared/{writer}"


def is_parted_snapshot(ref: str) -> bool:
    """Whether ``ref`` is the payload snapshot of a parted history (``snapshot_of``)."""
    return ref.startswith(PREFIX) and _PARTED_SNAPSHOT.match(ref[len(PREFIX):]) is not None


def kept_here(ref: str) -> bool:
    """Whether ``ref`` is a parted history or its snapshot: refs only this clone makes, each its
    own anchor, which no fetch refspec names and sync never pushes."""
    return is_parted(ref) or is_parted_snapshot(ref)
