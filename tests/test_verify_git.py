"""verify's own tree walk: it must name exactly the changes libgit2's tree diff names, and name
a missing or malformed tree instead of failing."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gitstore.providers._packs import Database
from gitstore.providers._verify_git import Unreadable, changes

from .conftest import git

_NAMES = st.sampled_from(["a", "b", "b.json", "b-", "c", "z0"])
# a tree as nested dicts: name -> bytes (a file), name -> dict (a folder); some files executable
_TREES = st.recursive(
    st.binary(max_size=3),
    lambda children: st.dictionaries(_NAMES, children, max_size=4),
    max_leaves=12,
).filter(lambda t: isinstance(t, dict))


def _write(repo: pygit2.Repository, tree: dict[str, object]) -> pygit2.Oid:
    builder = repo.TreeBuilder()
    for name, value in tree.items():
        if isinstance(value, dict):
            builder.insert(name, _write(repo, value), pygit2.GIT_FILEMODE_TREE)
        else:
            assert isinstance(value, bytes)
            mode = pygit2.GIT_FILEMODE_BLOB_EXECUTABLE if value.startswith(b"x") else pygit2.GIT_FILEMODE_BLOB
            builder.insert(name, repo.create_blob(value), mode)
    return builder.write()


def _libgit2(repo: pygit2.Repository, old: pygit2.Oid, new: pygit2.Oid) -> list[tuple[str, str, int]]:
    diff = repo[old].diff_to_tree(repo[new])
    found = []
    for delta in diff.deltas:
        status = delta.status_char()
        side = delta.old_file if status == "D" else delta.new_file
        found.append((status, side.path, side.mode))
    return sorted(found)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    path = tmp_path_factory.mktemp("verify") / "repo.git"
    return pygit2.init_repository(str(path), bare=True)


@settings(max_examples=300, deadline=None)
@given(old=_TREES, new=_TREES)
def test_changes_match_libgit2s_diff(bare: pygit2.Repository, old: dict[str, object],
                                     new: dict[str, object]) -> None:
    assume(_distinct_folders(old) and _distinct_folders(new))  # as every memory tree's are (see below)
    a, b = _write(bare, old), _write(bare, new)
    ours = sorted((s, p, int(m, 8)) for s, p, m, _ in changes(Database(bare), a.raw, b.raw))
    assert ours == _libgit2(bare, a, b)


def _distinct_folders(tree: dict[str, object]) -> bool:
    """Whether no folder of ``tree`` (itself included) has the same contents as another."""
    found: list[str] = []

    def key(folder: dict[str, object]) -> str:
        inner = sorted((name, key(value) if isinstance(value, dict) else repr(value)) for name, value in folder.items())
        found.append(repr(inner))
        return found[-1]

    key(tree)
    return len(set(found)) == len(found)


@pytest.mark.parametrize("side", ["new", "old"])
def test_a_folder_met_twice_is_refused_not_walked_again(bare: pygit2.Repository, side: str) -> None:
    """Entries naming one folder, level upon level: 50 ** 3 paths, from three trees. The
    walk refuses the folder the second time it meets it, on either side of the diff."""
    tree = _write(bare, {"x.json": b"{}"})
    for _ in range(3):
        builder = bare.TreeBuilder()
        for i in range(50):
            builder.insert(f"{i:03}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    other = _write(bare, {"y": b"1"})
    old, new = (other, tree) if side == "new" else (tree, other)
    with pytest.raises(Unreadable, match="is both 000/000/000/ and 000/000/001/: a memory tree never holds one folder"):
        list(changes(Database(bare), old.raw, new.raw))


def test_from_nothing_every_file_is_added(bare: pygit2.Repository) -> None:
    tree = _write(bare, {"a": {"b": b"1", "c": {"d": b"2"}}, "e": b"3"})
    assert [(s, p) for s, p, _, _ in changes(Database(bare), None, tree.raw)] == [
        ("A", "a/b"), ("A", "a/c/d"), ("A", "e")]


def test_a_missing_tree_is_named(bare: pygit2.Repository) -> None:
    gone = "12" * 20
    inner = bare.odb.write(pygit2.GIT_OBJECT_TREE, b"40000 sub\0" + bytes.fromhex(gone))
    with pytest.raises(Unreadable, match=f"tree {gone} is missing"):
        list(changes(Database(bare), None, inner.raw))


def test_a_malformed_tree_is_named(bare: pygit2.Repository) -> None:
    bad = bare.odb.write(pygit2.GIT_OBJECT_TREE, b"100644 name-without-terminator")
    with pytest.raises(Unreadable, match=f"tree {bad} is malformed"):
        list(changes(Database(bare), None, bad.raw))


def test_a_blob_where_a_tree_belongs_is_named(bare: pygit2.Repository) -> None:
    blob = bare.create_blob(b"not a tree")
    with pytest.raises(Unreadable, match=f"{blob} is not a tree"):
        list(changes(Database(bare), None, blob.raw))


def test_verify_names_a_commit_whose_subtree_is_missing(tmp_path: Path) -> None:
    from gitstore.conformance import _records as R
    from gitstore.conformance import batch
    from gitstore.providers.git import GitProvider, records_ref

    repo_path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo_path))
    provider = GitProvider(repo_path, "w1")
    provider.append(batch(R.grant("g1")))
    repo = provider.repo
    tip = repo.references[records_ref("shared", "w1")].target
    commit = repo[tip]
    # the same commit message over a tree whose one folder names an object that is not there
    hollow = repo.odb.write(pygit2.GIT_OBJECT_TREE, b"40000 grant\0" + b"\x13" * 20)
    forged = repo.create_commit(None, commit.author, commit.committer, commit.message, hollow, [])
    repo.references.create(records_ref("shared", "w1"), forged, force=True)
    report = GitProvider(repo_path, "w1").verify()
    assert not report.ok
    assert any("13131313" in str(p) and "missing" in str(p) for p in report.problems)


def _forge(repo: pygit2.Repository, ref: str, tree: bytes) -> None:
    """Append a commit over ``tree`` to ``ref``: its tip's message with the next clock."""
    import re

    commit = repo[repo.references[ref].target]
    clock = int(re.search(r"^Clock: (\d+)$", commit.message, re.M).group(1))  # type: ignore[union-attr]
    message = re.sub(r"^Clock: \d+$", f"Clock: {clock + 1}", commit.message, flags=re.M)
    forged = repo.create_commit(None, commit.author, commit.committer, message, pygit2.Oid(raw=tree), [commit.id])
    repo.references.create(ref, forged, force=True)


def test_a_name_with_line_breaks_in_a_pushed_tree_is_named_on_one_line(tmp_path: Path) -> None:
    """Whoever can push names the files of their trees: a name holding a line break must not
    print a line of its own (a forged "0 problems") wherever verify's problems are shown."""
    from gitstore.conformance import _records as R
    from gitstore.conformance import batch
    from gitstore.providers.git import GitProvider, records_ref

    repo_path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo_path))
    provider = GitProvider(repo_path, "w1")
    provider.append(batch(R.grant("g1")))
    repo, ref = provider.repo, records_ref("shared", "w1")
    root = repo[repo.references[ref].target].tree
    name = b"x\ngitstore: verify: 0 problems\r\n.json"
    blob = repo.create_blob(b"{}")
    entries = sorted([(e.filemode, e.name.encode(), e.id.raw) for e in root] + [(0o100644, name, blob.raw)],
                     key=lambda e: e[1] + (b"/" if e[0] == 0o40000 else b""))
    tree = repo.odb.write(pygit2.GIT_OBJECT_TREE, b"".join(b"%o %s\0%s" % e for e in entries))
    _forge(repo, ref, tree.raw)
    problems = GitProvider(repo_path, "w1").verify().problems
    assert any("wrong path" in str(p) for p in problems), problems
    assert all("\n" not in str(p) and "\r" not in str(p) for p in problems), problems


def _rows(rows: list[tuple[bytes, bytes, pygit2.Oid]]) -> bytes:
    return b"".join(b"%s %s\0%s" % (mode, name, oid.raw) for mode, name, oid in rows)


def test_a_tree_not_in_gits_order_is_named(bare: pygit2.Repository) -> None:
    """git finds an entry by bisecting its tree: a tree out of git's order (a folder sorts as
    ``name/``) hides entries from plain git that gitstore would read."""
    blob = bare.create_blob(b"1")
    folder = _write(bare, {"x": b"2"})
    for rows in ([(b"100644", b"b", blob), (b"100644", b"a", blob)],
                 [(b"40000", b"a", folder), (b"100644", b"a.json", blob)]):  # "a/" sorts after "a.json"
        tree = bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows(rows))
        with pytest.raises(Unreadable, match=f"tree {tree} is not sorted as git sorts a tree"):
            list(changes(Database(bare), None, tree.raw))
    in_order = bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", b"a.json", blob), (b"40000", b"a", folder)]))
    assert [p for _, p, _, _ in changes(Database(bare), None, in_order.raw)] == ["a.json", "a/x"]


def test_a_record_added_out_of_order_to_a_folder_of_records_is_named(bare: pygit2.Repository) -> None:
    """The rows a records folder gained are found by searching, not by reading every row: each
    is checked against the rows around it."""
    blob = bare.create_blob(b"{}")
    one, two, three = (b"%s.json" % (c * 64).encode() for c in "137")
    old = bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", one, blob), (b"100644", three, blob)]))
    for order in ((one, three, two), (two, one, three)):
        new = bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", name, blob) for name in order]))
        with pytest.raises(Unreadable, match=f"tree {new} is not sorted as git sorts a tree"):
            list(changes(Database(bare), old.raw, new.raw, listed={"": [two.decode()]}, clean={old.raw}))
    new = bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", n, blob) for n in (one, two, three)]))
    assert [p for _, p, _, _ in changes(Database(bare), old.raw, new.raw, listed={"": [two.decode()]}, clean={old.raw})] \
        == [two.decode()]


def test_folders_holding_the_same_names_are_compared_in_place(bare: pygit2.Repository) -> None:
    """Two folders naming the same entries in the same order (an append's folders above the
    leaves) are compared entry by entry in place: a file become a folder, a folder changed
    and one unchanged are named as libgit2 names them."""
    old = _write(bare, {"a": b"1", "b": {"x": b"2"}, "c": b"3", "d": {"y": b"4"}})
    new = _write(bare, {"a": {"z": b"1"}, "b": {"x": b"5", "w": b"6"}, "c": b"3", "d": b"x7"})
    ours = sorted((s, p, int(m, 8)) for s, p, m, _ in changes(Database(bare), old.raw, new.raw))
    assert ours == _libgit2(bare, old, new)
    assert {p for _, p, _ in ours} == {"a", "a/z", "b/w", "b/x", "d", "d/y"}


@pytest.mark.parametrize("clean", [True, False])
def test_rows_an_append_adds_to_a_folder_of_records_are_each_checked(bare: pygit2.Repository, clean: bool) -> None:
    """Several rows taken out of one folder: each is checked against the rows around it,
    whether the folder's old version is known to hold records in order or not."""
    blob = bare.create_blob(b"{}")
    name = {c: b"%s.json" % (c * 64).encode() for c in "13579"}

    def folder(digits: str) -> pygit2.Oid:
        return bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", name[c], blob) for c in digits]))

    old = folder("37")
    listed = {"": [name["9"].decode(), name["1"].decode(), name["5"].decode()]}
    for wrong in ("13795", "93751", "31759", "35179", "13597"):  # the old rows kept, in order
        new = folder(wrong)
        with pytest.raises(Unreadable, match=f"tree {new} is not sorted as git sorts a tree"):
            list(changes(Database(bare), old.raw, new.raw, listed=listed, clean={old.raw} if clean else set()))
    new = folder("13579")
    found = [p for _, p, _, _ in changes(Database(bare), old.raw, new.raw, listed=listed,
                                         clean={old.raw} if clean else set())]
    assert found == [name[c].decode() for c in "159"]


@pytest.mark.parametrize("clean", [True, False])
@pytest.mark.parametrize("before, after", [("123", "1223"), ("13", "1223"), ("13", "1322"), ("3", "223"),
                                           ("13", "2132")])
def test_a_record_named_twice_after_an_append_is_named(bare: pygit2.Repository, clean: bool, before: str,
                                                       after: str) -> None:
    """A folder that holds a name twice once an append added its listed row is named, whether
    its old version is known to hold records in order (the search for the name stops at its
    first row: the rows beside each row taken tell a second one) or not."""
    blob = bare.create_blob(b"{}")

    def folder(digits: str) -> pygit2.Oid:
        return bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", b"%s.json" % (c * 64).encode(), blob)
                                                              for c in digits]))

    old, new = folder(before), folder(after)
    with pytest.raises(Unreadable, match=f"tree {new} (names an entry twice|is not sorted as git sorts a tree)"):
        list(changes(Database(bare), old.raw, new.raw, listed={"": ["2" * 64 + ".json"]},
                     clean={old.raw} if clean else set()))


def test_a_row_taken_from_a_folder_not_known_to_be_in_order_is_its_names_only_one(bare: pygit2.Repository) -> None:
    """An old version out of order (never found to hold records in order) and a new one that
    is it with a listed name's row added in order beside the rows around it, the name being
    in the folder already: the search finds the row last of that name, and the other one is
    looked for too."""
    blob = bare.create_blob(b"{}")

    def folder(digits: str) -> pygit2.Oid:
        return bare.odb.write(pygit2.GIT_OBJECT_TREE, _rows([(b"100644", b"%s.json" % (c * 64).encode(), blob)
                                                              for c in digits]))

    old, new = folder("213"), folder("2123")
    with pytest.raises(Unreadable, match=f"tree {new} names an entry twice"):
        list(changes(Database(bare), old.raw, new.raw, listed={"": ["2" * 64 + ".json"]}, clean=set()))


@pytest.mark.parametrize("header, body", [("encoding x-bogus\n", b"gitstore: records\n"),
                                           ("encoding ISO-8859-1\n", b"gitstore: records\n"),
                                           ("", b"gitstore: records \xff\n")])
def test_a_commit_naming_another_encoding_is_no_append_wherever_it_is_named(bare: pygit2.Repository, header: str,
                                                                             body: bytes) -> None:
    """A commit whose message names an encoding (a codec Python lacks made pygit2's decoding
    raise LookupError) or is not UTF-8 is no append: reading its message says so as a
    ValueError, as for any message that is no append's, and an append's Seen header naming it
    names nothing, whatever ref holds it (one whose name no listing shows, say)."""
    from gitstore.providers._message import message_of
    from gitstore.providers._verify_git import _named

    tree = _write(bare, {"a": b"x"})
    raw = (f"tree {tree}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n{header}\n").encode() + body
    oid = bare.odb.write(pygit2.GIT_OBJECT_COMMIT, raw)
    with pytest.raises(ValueError, match="names the encoding|is not UTF-8"):
        message_of(bare[oid])
    assert _named((bare,), str(oid)) is None
