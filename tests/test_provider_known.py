"""The memory of checked record bytes: a read checks each content once, and the memory never
serves bytes that changed. Each way storage can change under it (a blob swapped in place, a ref
rewritten or moved back, a tips log cut, other contracts, the memory's own files damaged) is
made with real git objects and files, then read through the store."""

from __future__ import annotations

import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from gitstore import IntegrityError, kind_of
from gitstore.conformance import _records as R
from gitstore.providers._known import COMPACT_FROM, KnownBytes, content_key
from gitstore.providers.git import GitProvider, record_path, records_ref, tips_log
from gitstore.store import REMEMBER_FROM, Store, _known_name

from .conftest import git

WRITER = "w1"
REF = records_ref("shared", WRITER)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    return path


def store(repo: Path) -> Store:
    return Store(GitProvider(repo, WRITER), R.SCOPE)


def memory(repo: Path) -> KnownBytes:
    """The memory as a new command would open it."""
    return GitProvider(repo, WRITER).known_bytes(_known_name())


def blob_of(repo: Path, record: dict) -> bytes:
    """The stored bytes of a record, read with plain git."""
    path = record_path(kind_of(record), record["digest"])
    return pygit2.Repository(str(repo)).revparse_single(f"{REF}:{path}").data  # type: ignore[no-any-return]


@pytest.fixture
def strict_hashes_off() -> Iterator[None]:
    """Let libgit2 hand back bytes that do not hash to their object id, as storage damaged in
    place (or a SHA-1 collision) would: the memory must not lean on git's object ids."""
    pygit2.settings.enable_strict_hash_verification(False)
    try:
        yield
    finally:
        pygit2.settings.enable_strict_hash_verification(True)


def overwrite(repo: Path, record: dict, data: bytes) -> None:
    """Put ``data`` in place of a record's loose object, under the same object id."""
    oid = pygit2.Repository(str(repo)).revparse_single(f"{REF}:{record_path(kind_of(record), record['digest'])}").id
    loose = repo / ".git" / "objects" / str(oid)[:2] / str(oid)[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\0" % len(data) + data))


def test_what_was_checked_is_remembered_by_the_sha256_of_its_bytes(repo: Path) -> None:
    grants = [R.grant(f"g{n}") for n in range(REMEMBER_FROM)]
    store(repo).append(grants)  # a bulk append: remembered as checked on the way in
    known = memory(repo)
    assert all(content_key(blob_of(repo, g)) in known for g in grants)
    read = [i.record for i in store(repo).items(["grant"])]
    assert read == grants


def test_a_small_append_is_remembered_by_the_read_that_checks_it(repo: Path) -> None:
    record = R.grant("single")
    store(repo).append([record])  # no memory file written for one record
    assert content_key(blob_of(repo, record)) not in memory(repo)
    assert [i.record for i in store(repo).items()] == [record]
    assert content_key(blob_of(repo, record)) in memory(repo)


def test_a_blob_swapped_in_place_is_checked_again_and_refused(repo: Path, strict_hashes_off: None) -> None:
    first, second = R.grant("first"), R.grant("second")
    store(repo).append([first])
    store(repo).append([second])
    assert len(list(store(repo).items())) == 2  # both known now
    # overwrite the first record's loose object with the second record's bytes (which the
    # memory knows as sound, under another digest)
    other = blob_of(repo, second)
    overwrite(repo, first, other)
    assert content_key(other) in memory(repo)
    with pytest.raises(IntegrityError, match=first["digest"]):
        list(store(repo).items())


def test_changed_bytes_are_never_served_from_memory(repo: Path, strict_hashes_off: None) -> None:
    record = R.grant("changed")
    store(repo).append([record])
    damaged = blob_of(repo, record).replace(b"review", b"reviex", 1)
    overwrite(repo, record, damaged)
    with pytest.raises(IntegrityError, match="damaged"):
        list(store(repo).items())


def _rewrite(repo: Path) -> None:
    """The records ref moved to a new commit holding the same tree under another parent chain."""
    tip = git(repo, "rev-parse", REF).strip()
    message = git(repo, "log", "-1", "--format=%B", tip)
    tree = git(repo, "rev-parse", f"{tip}^{{tree}}").strip()
    commit = subprocess.run(["git", "commit-tree", tree], cwd=repo, input=message, capture_output=True, text=True,
                            check=True).stdout.strip()
    git(repo, "update-ref", REF, commit, tip)


def test_a_rewritten_ref_fails_closed_and_drops_the_memory(repo: Path) -> None:
    record = R.grant("rewritten")
    store(repo).append([record])
    store(repo).append([R.grant("second")])
    assert content_key(blob_of(repo, record)) in memory(repo)
    _rewrite(repo)
    with pytest.raises(IntegrityError, match="moved back"):
        list(store(repo).items())
    assert not list((repo / ".git" / "gitstore" / "verified").glob("records-*.keys"))
    assert not list((repo / ".git" / "gitstore" / "verified").glob("records-*.log"))


def test_a_ref_moved_back_and_forth_again_is_checked_again_in_full(repo: Path) -> None:
    first = R.grant("first")
    store(repo).append([first])
    before = git(repo, "rev-parse", REF).strip()
    store(repo).append([R.grant("second")])
    after = git(repo, "rev-parse", REF).strip()
    assert content_key(blob_of(repo, first)) in memory(repo)
    git(repo, "update-ref", REF, before)
    with pytest.raises(IntegrityError, match="moved back"):
        memory(repo)
    git(repo, "update-ref", REF, after)  # repaired: nothing remembered from before the damage
    assert content_key(blob_of(repo, first)) not in memory(repo)
    list(store(repo).items())  # a read checks everything again, and remembers it
    assert content_key(blob_of(repo, first)) in memory(repo)


def test_an_advancing_store_keeps_its_memory(repo: Path) -> None:
    first = R.grant("first")
    store(repo).append([first])
    for n in range(3):
        store(repo).append([R.grant(f"more{n}")])
    assert content_key(blob_of(repo, first)) in memory(repo)


def test_a_cut_tips_log_empties_the_memory(repo: Path) -> None:
    first = R.grant("first")
    for record in (first, R.grant("second"), R.grant("third")):
        store(repo).append([record])  # each notes the log as it was before its own commit
    log = tips_log(repo / ".git" / "gitstore", REF)
    lines = log.read_text(encoding="ascii").splitlines()
    log.write_text(lines[0] + "\n", encoding="ascii")
    assert content_key(blob_of(repo, first)) not in memory(repo)


def test_other_contracts_start_an_empty_memory_and_drop_the_old_one(repo: Path) -> None:
    first = R.grant("first")
    store(repo).append([first])
    other = GitProvider(repo, WRITER).known_bytes("records-0000000000000000")
    assert content_key(blob_of(repo, first)) not in other
    assert not list((repo / ".git" / "gitstore" / "verified").glob(_known_name() + ".*"))


def test_a_damaged_memory_file_is_dropped_and_everything_checked_again(repo: Path) -> None:
    record = R.grant("kept")
    store(repo).append([record] + [R.grant(f"g{n}") for n in range(5)])
    for path in (repo / ".git" / "gitstore" / "verified").glob("records-*.log"):
        data = bytearray(path.read_bytes())
        data[-1] ^= 0x01  # one bit of one key
        path.write_bytes(bytes(data))
    assert content_key(blob_of(repo, record)) not in memory(repo)
    assert len(list(store(repo).items())) == 6


def test_a_key_slipped_into_the_memory_without_its_checksum_is_never_trusted(repo: Path,
                                                                            strict_hashes_off: None) -> None:
    record = R.grant("target")
    store(repo).append([record])
    list(store(repo).items())  # checked, remembered: the memory's log is written
    damaged = blob_of(repo, record).replace(b"review", b"reviex", 1)
    overwrite(repo, record, damaged)
    # append the damaged bytes' key to the memory's log as if it had been checked, without
    # the checksum a real save writes
    log = next((repo / ".git" / "gitstore" / "verified").glob("records-*.log"))
    log.write_bytes(log.read_bytes() + b"\0\0\0\0\0\0\0\1\0\0\0\0" + content_key(damaged))
    with pytest.raises(IntegrityError, match="damaged"):
        list(store(repo).items())


def test_the_memory_survives_folding_its_log_and_reopening(tmp_path: Path) -> None:
    witness = {"memory": "m"}
    keys = [content_key(b"%d" % n) for n in range(COMPACT_FROM + 10)]
    first = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    for key in keys[:10]:
        first.add(key)
    first.save()
    assert (tmp_path / "m.log").exists() and not (tmp_path / "m.keys").exists()
    for key in keys[10:]:
        first.add(key)
    first.save()  # the log holds enough now: folded into the keys file
    assert (tmp_path / "m.keys").exists() and not (tmp_path / "m.log").exists()
    again = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    assert all(key in again for key in keys)
    assert content_key(b"never added") not in again
    refused = KnownBytes.open(tmp_path, "m", witness, lambda last: False)
    assert not any(key in refused for key in keys)
    assert not (tmp_path / "m.keys").exists()


@pytest.mark.parametrize("again", [COMPACT_FROM, 4 * COMPACT_FROM], ids=["same-buckets", "more-buckets"])
def test_a_key_added_again_is_kept_once_when_the_log_is_folded(tmp_path: Path, again: int) -> None:
    witness = {"memory": "m"}
    known, new = 4 * COMPACT_FROM, 500
    keys = [content_key(b"%d" % n) for n in range(known + new)]
    first = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    for key in keys[:known]:
        first.add(key)
    first.save()  # folded: the keys file holds them
    second = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    for key in keys[known - again:]:  # ``again`` of them known already
        second.add(key)
    second.save()  # folded again, into as many buckets or into more
    assert not (tmp_path / "m.log").exists()
    folded = (tmp_path / "m.keys").read_bytes()
    assert int.from_bytes(folded[12:16], "big") == known + new  # the header's key count: each once
    reopened = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    assert all(key in reopened for key in keys)
    assert content_key(b"never added") not in reopened


@pytest.mark.parametrize("again", [COMPACT_FROM, 4 * COMPACT_FROM], ids=["same-buckets", "more-buckets"])
def test_a_keys_file_whose_buckets_hold_their_keys_in_any_order_folds_whole(tmp_path: Path, again: int) -> None:
    """Only the buckets' order is the format's: a keys file whose buckets hold their keys in
    another order (as folding leaves them, or an older gitstore wrote them) folds into one that
    knows every key once and no other, into as many buckets or into more."""
    witness = {"memory": "m"}
    known = 4 * COMPACT_FROM
    keys = [content_key(b"%d" % n) for n in range(known + again)]
    first = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    for key in keys[:known]:
        first.add(key)
    first.save()
    path = tmp_path / "m.keys"
    data = bytearray(path.read_bytes())
    bits, count = int.from_bytes(data[8:12], "big"), int.from_bytes(data[12:16], "big")
    fanout = 24 + int.from_bytes(data[20:24], "big")
    at = fanout + 4 * (1 << bits)
    assert at + 32 * count == len(data)
    start = 0
    for bucket in range(1 << bits):  # each bucket's keys reversed
        end = int.from_bytes(data[fanout + 4 * bucket:fanout + 4 * bucket + 4], "big")
        rows = [bytes(data[at + 32 * i:at + 32 * i + 32]) for i in range(start, end)]
        data[at + 32 * start:at + 32 * end] = b"".join(reversed(rows))
        start = end
    data[16:20] = zlib.crc32(data[20:]).to_bytes(4, "big")
    path.write_bytes(bytes(data))
    second = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    assert all(key in second for key in keys[:known])
    for key in keys[known // 2:]:  # half of them known already
        second.add(key)
    second.save()
    assert not (tmp_path / "m.log").exists()
    assert int.from_bytes(path.read_bytes()[12:16], "big") == known + again
    reopened = KnownBytes.open(tmp_path, "m", witness, lambda last: True)
    assert all(key in reopened for key in keys)
    assert not any(content_key(b"x%d" % n) in reopened for n in range(1000))


def test_a_torn_log_block_drops_the_memory(tmp_path: Path) -> None:
    memory_ = KnownBytes.open(tmp_path, "m", {"memory": "m"}, lambda last: True)
    memory_.add(content_key(b"a"))
    memory_.save()
    log = tmp_path / "m.log"
    log.write_bytes(log.read_bytes()[:-5])
    assert content_key(b"a") not in KnownBytes.open(tmp_path, "m", {"memory": "m"}, lambda last: True)



SAVE_MORE = """
import resource, sys
from pathlib import Path
from gitstore.providers._known import KnownBytes, content_key
folder, limit = Path(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # the disk fills part way through the block
memory = KnownBytes.open(folder, "m", {"memory": "m"}, lambda last: True)
for n in range(50):
    memory.add(content_key(b"more %d" % n))
memory.save()
"""


def test_a_save_the_disk_refuses_is_given_up_and_leaves_the_log_whole(tmp_path: Path) -> None:
    import sys

    first = KnownBytes.open(tmp_path, "m", {"memory": "m"}, lambda last: True)
    first.add(content_key(b"a"))
    first.save()
    log = tmp_path / "m.log"
    before = log.read_bytes()
    done = subprocess.run([sys.executable, "-c", SAVE_MORE, str(tmp_path), str(len(before) + 100)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # a read never fails for its memory
    assert log.read_bytes() == before  # no torn block: the memory kept is still trusted
    assert content_key(b"a") in KnownBytes.open(tmp_path, "m", {"memory": "m"}, lambda last: True)


def test_a_replace_ref_never_gets_other_bytes_served_as_a_record(repo: Path) -> None:
    first, second = R.grant("first"), R.grant("second")
    store(repo).append([first, second])
    assert len(list(store(repo).items())) == 2  # both known now
    found = pygit2.Repository(str(repo))
    old = found.revparse_single(f"{REF}:{record_path('grant', first['digest'])}").id
    new = found.revparse_single(f"{REF}:{record_path('grant', second['digest'])}").id
    git(repo, "replace", str(old), str(new))  # git itself would now show the second's bytes
    items = list(store(repo).items())  # read by object id, the replacement is not followed...
    assert [i.record for i in items] == [first, second]  # ...or, if it were, refused by digest


def test_another_clones_rewritten_history_is_never_read_nor_trusted(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    git(tmp_path, "init", "-q", str(origin))
    git(origin, "commit", "-q", "--allow-empty", "-m", "root")
    Store(GitProvider(origin, "wa"), R.SCOPE).append([R.grant("theirs"), R.grant("more")])
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "config", "--add", "remote.origin.fetch",
        "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/origin/records/shared/*")
    git(clone, "fetch", "-q", "origin")
    theirs = [i.record for i in store(clone).items(["grant"])]
    assert len(theirs) == 2
    fetched = "refs/memory/v1/remotes/origin/records/shared/wa"
    data = pygit2.Repository(str(clone)).revparse_single(
        f"{fetched}:{record_path('grant', theirs[0]['digest'])}").data
    assert content_key(data) in memory(clone)
    tip = git(clone, "rev-parse", fetched).strip()  # the same append under a rewritten history, its records gone
    tree = subprocess.run(["git", "mktree"], cwd=clone, input="", capture_output=True, text=True,
                          check=True).stdout.strip()
    message = git(clone, "log", "-1", "--format=%B", tip)
    rewritten = subprocess.run(["git", "commit-tree", tree], cwd=clone, input=message, capture_output=True,
                               text=True, check=True).stdout.strip()
    git(clone, "update-ref", fetched, rewritten)
    # a history that does not extend the one admitted, and fails verification, is never read:
    # the reads, and the memory of what they checked, stay with the history admitted (whose
    # bytes are the ones checked)
    provider = GitProvider(clone, WRITER)
    assert sorted(i.record["digest"] for i in Store(provider, R.SCOPE).items(["grant"])) == \
        sorted(r["digest"] for r in theirs)
    assert [p.where for p in provider.quarantined()] == [fetched]
    assert f"ref {fetched}" in provider._witness("x") and provider._witness("x")[f"ref {fetched}"] == tip


READ_IN_A_NEW_PROCESS = """
import sys
from gitstore.conformance import _records as R
from gitstore.providers.git import GitProvider
from gitstore.store import Store
records = [i.record for i in Store(GitProvider(sys.argv[1], "w1"), R.SCOPE).items()]
print(len(records), "jsonschema_rs" in sys.modules)
"""


def read_in_a_new_process(repo: Path) -> str:
    done = subprocess.run([sys.executable, "-c", READ_IN_A_NEW_PROCESS, str(repo)],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_read_of_known_bytes_never_loads_the_schema_validator(repo: Path) -> None:
    """The compiled validator's library costs a command about 20 ms to import: a read whose
    records the memory knows checks none against the schemas, so it never imports it; bytes
    the memory does not know are still checked in full."""
    store(repo).append([R.grant("first")])
    assert read_in_a_new_process(repo) == "1 True"  # the first read checks it, and remembers
    assert read_in_a_new_process(repo) == "1 False"
    store(repo).append([R.grant("second")])
    assert read_in_a_new_process(repo) == "2 True"
