"""``gitstore provenance BASE..HEAD``: each promotion commit with its learning and digests, and
the promotion gate's own verdict on it (a forged trailer does not verify)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitstore.cli import main
from gitstore.context import Context
from gitstore.ops.promote import promote
from gitstore.promote.branch import TRAILERS, stray_trailers, trailers
from gitstore.promote.gates import promotion as promotion_gate
from gitstore.promote.provenance import provenance, split_range

from .promotion_world import PERSON, accepted_learning, git, wiki_repo


@pytest.fixture(scope="module")
def promoted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Context, dict[str, Any], Any]:
    ctx = wiki_repo(tmp_path_factory.mktemp("provenance") / "widgets")
    learning = accepted_learning(ctx)
    return ctx, learning, promote(ctx, learning["id"], PERSON)


def forge(root: Path, branch: str, learning: dict[str, Any]) -> str:
    """A commit on top of ``branch`` claiming the promotion with a content digest of its own."""
    message = git(root, "log", "-1", "--format=%B", branch)
    forged = message.replace(learning["contentDigest"], "sha256:" + "0" * 64)
    git(root, "checkout", "-q", "-B", "forged", branch)
    page = root / "okf" / "wiki" / "reliability.md"
    page.write_text(page.read_text() + "\nAlso: retry forever.\n")
    git(root, "commit", "-q", "-am", forged)
    git(root, "checkout", "-q", "main")
    return git(root, "rev-parse", "forged").strip()


def test_a_promotion_commit_verifies_with_its_learning_and_digests(promoted: tuple[Context, dict[str, Any], Any],
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    found = provenance(ctx.workspace.root, f"main..{result.branch}")
    assert [c.commit for c in found.commits] == [result.commit] and found.verified
    entry = found.commits[0].to_json()
    assert entry["learning"] == learning["id"] and entry["title"] == "Retries use jitter"
    assert entry["contentDigest"] == learning["contentDigest"] and entry["packet"] == result.packet["digest"]
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["provenance", f"main..{result.branch}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f'  learning {learning["id"]} "Retries use jitter"' and out[5] == "  verified"
    assert out[-1] == f"1 promotion commit(s) in main..{result.branch}: 1 verified, 0 not"
    assert main(["provenance", f"main..{result.branch}", "--markdown"]) == 0
    table = capsys.readouterr().out
    assert f"| `{result.commit[:12]}` | `{learning['id']}` `Retries use jitter` | `{learning['contentDigest'][:19]}` |" in table
    assert main(["provenance", "main..main"]) == 0
    assert capsys.readouterr().out == "no promotion commits in main..main\n"


def test_a_forged_trailer_does_not_verify(promoted: tuple[Context, dict[str, Any], Any],
                                          capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    forged = forge(ctx.workspace.root, result.branch, learning)
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["provenance", "main..forged", "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [c["verified"] for c in found["commits"]] == [True, False] and found["verified"] is False
    assert found["commits"][1]["commit"] == forged
    assert any("differs from the packet's contentDigest" in p for p in found["commits"][1]["problems"])
    assert main(["provenance", "main..forged", "--markdown"]) == 1
    assert "| **no** |" in capsys.readouterr().out


def test_ranges_are_read_plainly(promoted: tuple[Context, dict[str, Any], Any], capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert split_range("a..b") == ("a", "b") and split_range("a..") == ("a", "HEAD") and split_range("b") == (None, "b")
    monkeypatch.chdir(promoted[0].workspace.root)
    assert main(["provenance", "main...HEAD"]) == 2
    assert "two dots" in capsys.readouterr().err
    assert main(["provenance", "no-such-base..HEAD"]) == 1
    assert capsys.readouterr().err.strip() == "gitstore: error: no-such-base: no such commit"


@pytest.mark.parametrize("spec", [None, "HEAD", "main..HEAD"])
def test_a_repository_with_no_commit_yet_is_said_so_as_promote_says_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, spec: str | None) -> None:
    """It said `HEAD: no such commit`, as of a name mistyped, where promote says what is so."""
    git(tmp_path, "init", "-q", "-b", "main")
    monkeypatch.chdir(tmp_path)
    assert main(["provenance", *([spec] if spec else [])]) == 1
    assert capsys.readouterr().err == ("gitstore: error: the repository has no commit yet: provenance reads the "
                                       "promotion commits made on top of one\n")


def test_without_a_range_it_reads_heads_commits_on_no_remote(promoted: tuple[Context, dict[str, Any], Any],
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    pushed = f"refs/remotes/origin/{result.branch}"
    monkeypatch.chdir(root)
    git(root, "checkout", "-q", result.branch)
    try:
        assert main(["provenance", "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        assert found["range"] == "HEAD" and [c["commit"] for c in found["commits"]] == [result.commit]
        git(root, "update-ref", pushed, result.branch)  # the branch is on a remote now
        assert main(["provenance"]) == 0
        assert capsys.readouterr().out == "no promotion commits in HEAD\n"
    finally:
        git(root, "update-ref", "-d", pushed)
        git(root, "checkout", "-q", "main")


def _commit_block(root: Path, branch: str, base: str, block: str, message: str = "Note the retry policy") -> str:
    """An ordinary commit (no trailers) on a new ``branch`` from ``base`` appending ``block`` to the page."""
    git(root, "checkout", "-q", "-B", branch, base)
    page = root / "okf" / "wiki" / "reliability.md"
    page.write_text(page.read_text() + "\n" + block)
    git(root, "commit", "-q", "-am", message)
    git(root, "checkout", "-q", "main")
    return git(root, "rev-parse", branch).strip()


def claim(root: Path, branch: str, message: str) -> str:
    """A commit on top of ``main`` that changes the wiki, with ``message`` as git is given it."""
    git(root, "checkout", "-q", "-B", branch, "main")
    page = root / "okf" / "wiki" / "reliability.md"
    page.write_text(page.read_text() + "\nAlso: retry forever.\n")
    git(root, "add", "-A")
    subprocess.run(["git", "commit", "-q", "-F", "-"], cwd=root, input=message.encode(), check=True)
    git(root, "checkout", "-q", "main")
    return git(root, "rev-parse", branch).strip()


def test_a_promoted_block_outside_a_promotion_commit_fails(promoted: tuple[Context, dict[str, Any], Any],
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    page = "okf/wiki/reliability.md"
    lines = len((root / page).read_text().splitlines()) + 2  # the marker, after one blank line
    marker = f"<!-- gitstore:promoted {learning['id']} {learning['contentDigest']} -->"
    cited = f"Cited: `{learning['id']}@{learning['contentDigest']}`.\n"
    other = _commit_block(root, "other-text", "main", f"{marker}\nRetries never need jitter.\n{cited}")
    unknown = "lrn_0123456789abcdef0123456789abcdef"
    made_up = f"<!-- gitstore:promoted {unknown} sha256:{'7' * 64} -->\nDisable TLS checks when retrying.\n" \
              f"Cited: `{unknown}@sha256:{'7' * 64}`.\n"
    _commit_block(root, "no-such-learning", "main", made_up)
    accepted = _commit_block(root, "accepted-text", "main", f"{marker}\n{learning['content']['text']}\n{cited}")
    monkeypatch.chdir(root)
    for branch, why in (("other-text", f"the promoted text of {learning['id']} differs from the accepted learning"),
                        ("no-such-learning", f"a promoted block names {unknown}, which is not a learning of this "
                                             "repository's store"),
                        ("accepted-text", f"a promoted block of {learning['id']} is written by hand (its text is the "
                                          "accepted one; only promote writes a block, with its citations)")):
        assert main(["provenance", f"main..{branch}", "--json"]) == 1, branch
        verdict = json.loads(capsys.readouterr().out)
        assert verdict["verified"] is False and len(verdict["commits"]) == 1
        sha = git(root, "rev-parse", branch).strip()
        learning_id = unknown if branch == "no-such-learning" else learning["id"]
        expected = f"{page}:{lines}: {why}; it was added by commit {sha[:12]}, which is not the promotion commit " \
                   f"of {learning_id}"
        assert verdict["commits"][0]["problems"] == [expected]
        assert promotion_gate.main(["--from-ref", "main", "--to-ref", branch]) == 1
        assert capsys.readouterr().out.splitlines() == [expected]
    assert other != accepted


def test_a_block_from_before_the_range_is_not_judged_again(promoted: tuple[Context, dict[str, Any], Any],
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    unknown = "lrn_" + "ab" * 16
    base = _commit_block(root, "old-block", "main", f"<!-- gitstore:promoted {unknown} sha256:{'5' * 64} -->\n"
                                                    f"An old claim.\nCited: `src/retry.py@{'a' * 40}`.\n")
    git(root, "checkout", "-q", "-B", "later", base)
    page = root / "okf" / "wiki" / "reliability.md"
    text = page.read_text()
    start = text.index("<!-- gitstore:promoted")
    page.write_text("Intro.\n".join([text[:text.index("## Retries")], text[text.index("## Retries"):start]])
                    + "Moved here.\n\n" + text[start:])
    git(root, "commit", "-q", "-am", "Touch the page around the block")
    git(root, "checkout", "-q", "main")
    monkeypatch.chdir(root)
    assert promotion_gate.main(["--from-ref", "old-block", "--to-ref", "later"]) == 0
    assert main(["provenance", "old-block..later"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no promotion commits in old-block..later"
    assert promotion_gate.main(["--from-ref", "main", "--to-ref", "later"]) == 1
    assert f"which is not the promotion commit of {unknown}" in capsys.readouterr().out
def made_up(learning: dict[str, Any], keys: tuple[str, ...] = TRAILERS) -> str:
    values = (learning["id"], learning["contentDigest"], "sha256:" + "2" * 64, "sha256:" + "3" * 64)
    return "".join(f"{key}: {value}\n" for key, value in zip(keys, values))


@pytest.mark.parametrize(("name", "body", "keys"), [
    ("control-byte", "body\x01\n\n", TRAILERS),
    ("any-case", "body\n\n", tuple(key.lower() for key in TRAILERS)),
    ("upper-case", "body\n\n", tuple(key.upper() for key in TRAILERS)),
])
def test_made_up_trailers_git_reads_are_judged(promoted: tuple[Context, dict[str, Any], Any], name: str, body: str,
                                               keys: tuple[str, ...]) -> None:
    ctx, learning, _ = promoted
    root = ctx.workspace.root
    sha = claim(root, name, f"Promote {learning['id']}: x\n\n{body}{made_up(learning, keys)}")
    seen = git(root, "log", "-1", "--format=%(trailers:only,unfold)", name).lower()
    assert seen == made_up(learning).lower() + "\n"  # git reads all four
    found = promotion_gate.check([], root, "main", name)
    assert [f.message for f in found] == [f"Gitstore-Packet names sha256:{'3' * 64}, which this repository's store "
                                          "does not hold (a forged trailer, or memory not fetched)"]
    judged = provenance(root, f"main..{name}")
    assert [c.commit for c in judged.commits] == [sha] and not judged.verified


def test_trailers_followed_by_prose_do_not_verify(promoted: tuple[Context, dict[str, Any], Any],
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    trailer_lines = git(root, "log", "-1", "--format=%(trailers:only)", result.branch).strip()
    claim(root, "prose-after", f"Promote {learning['id']}: x\n\n{trailer_lines}\n\nReviewed in the PR.\n")
    assert git(root, "log", "-1", "--format=%(trailers:only)", "prose-after").strip() == ""
    found = promotion_gate.check([], root, "main", "prose-after")
    assert [f.line for f in found] == [3, 4, 5, 6]
    assert all("is not in the message's trailer block" in f.message for f in found)
    monkeypatch.chdir(root)
    assert main(["provenance", "main..prose-after", "--markdown"]) == 1
    table = capsys.readouterr().out
    assert "| **no** |" in table and "| yes |" not in table and "is not in the message's trailer block" in table
    assert promotion_gate.main(["--from-ref", "main", "--to-ref", "prose-after"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[0].endswith("Gitstore-Learning is not in the message's trailer block (its last "
                                             "paragraph), so git does not read it as a trailer: a promotion commit "
                                             "ends with its four trailers")


def test_trailers_are_read_as_git_reads_them() -> None:
    trailer = "Gitstore-Learning: lrn_" + "1" * 32
    assert trailers(f"Subject\n\nprose\n{trailer}\n") == {}
    assert stray_trailers(f"Subject\n\nprose\n{trailer}\n") == [(4, "Gitstore-Learning")]
    assert trailers(f"Subject\n\nprose\n{trailer}\nSigned-off-by: A <a@b>\n") == {"Gitstore-Learning": [(4, trailer[19:])]}
    assert trailers(f"{trailer}\n") == {} and stray_trailers(f"{trailer}\n") == [(1, "Gitstore-Learning")]
    assert trailers("Subject\n\ngitstore-PACKET : sha256:x\n  y\n") == {"Gitstore-Packet": [(3, "sha256:x y")]}
    assert trailers("Subject\n\ngitstore-route: x\n") == {"gitstore-route": [(3, "x")]}
    verbose = f"Subject\n\n{trailer}\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n"
    assert trailers(verbose) == {"Gitstore-Learning": [(3, trailer[19:])]} and stray_trailers(verbose) == []


def test_a_learnings_title_is_shown_screened(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A title any clone could have stored (one without the scanner) is shown as ``gitstore
    learnings`` shows it: a token redacted, a bidirectional control withheld with its kinds; in
    the text, the job summary and the JSON alike."""
    from gitstore.records.contracts import seal

    from .world import Thread, grant_all, propose, ready_repo, ref

    token = "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"
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    one = thread.comment("100", "Add jitter to every retry.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    record = propose(ctx, [ref(one)])
    root = ctx.workspace.root
    for n, title in enumerate((f"Deploy with {token}", "Deploy \u202egnp.exe")):
        forged = {**record, "content": {**record["content"], "title": title}}
        forged.pop("digest", None)
        seal(forged)
        forged["id"] = "lrn_" + forged["contentDigest"][7:39]
        forged.pop("digest")
        seal(forged)
        ctx.store.append([forged])
        git(root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m",
            f"Promote {n}\n\nGitstore-Learning: {forged['id']}\nGitstore-Packet: sha256:{'0' * 64}\n")
    titles = [c.title for c in provenance(root, "HEAD~2..HEAD").commits]
    assert titles[0] is not None and token not in titles[0] and titles[0].startswith("Deploy with "), titles
    assert titles[1] is not None and "\u202e" not in titles[1] and "withheld: bidi" in titles[1], titles
    monkeypatch.chdir(root)
    for extra in ([], ["--markdown"], ["--json"]):
        main(["provenance", "HEAD~2..HEAD", *extra])
        out = capsys.readouterr().out
        assert token not in out and "\u202e" not in out and "withheld" in out, (extra, out)


def _table(markdown: str) -> list[list[tuple[str, str, list[str]]]]:
    """The body rows of the first table of ``markdown`` as GFM reads them: each cell as its
    source, the text of its first code span and the texts of all its code spans."""
    markdown_it = pytest.importorskip("markdown_it")
    rows: list[list[tuple[str, str, list[str]]]] = []
    body = False
    for token in markdown_it.MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type in ("tbody_open", "tbody_close"):
            body = token.type == "tbody_open"
        elif body and token.type == "tr_open":
            rows.append([])
        elif body and token.type == "inline":
            codes = [child.content for child in token.children or [] if child.type == "code_inline"]
            rows[-1].append((token.content, codes[0] if codes else "", codes))
    return rows


FORGED_LEARNING = "lrn_0000` | `sha256:ok` | `sha256:ok` | yes | x | x |"


def test_a_trailer_cannot_add_cells_to_its_row(promoted: tuple[Context, dict[str, Any], Any],
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A forged trailer holding a backtick and table cells stays in its own cell, shown as
    written: the row has the table's five columns and its verdict is gitstore's."""
    ctx, learning, _ = promoted
    root = ctx.workspace.root
    claim(root, "forged-cells", f"Promote {learning['id']}: x\n\nbody\n\nGitstore-Learning: {FORGED_LEARNING}\n"
                                f"Gitstore-Content-Digest: sha256:`|`\nGitstore-Review-Digest: sha256:aa\n"
                                f"Gitstore-Packet: sha256:b`` | yes |\n")
    monkeypatch.chdir(root)
    assert main(["provenance", "main..forged-cells", "--markdown"]) == 1
    out = capsys.readouterr().out
    rows = _table(out)
    assert len(rows) == 1 and len(rows[0]) == 5 and rows[0][4][0] == "**no**", rows
    assert rows[0][1][1] == FORGED_LEARNING and rows[0][2][1] == "sha256:`|`" and rows[0][3][1] == "sha256:b`` | yes |"
    assert "| yes |" not in out.split("**Does not verify:**")[0]


def test_every_field_stays_in_its_cell() -> None:
    """Backticks (alone, in runs, first or last), pipes (escaped or not) and line breaks, in
    every value a row shows and in the problems: each row keeps its five cells and gitstore's
    verdict, each value reads back as written on one line, each problem is one code span."""
    from gitstore.promote.provenance import Promoted, Provenance

    nasty = ["`a | b`", "x``\n| yes |\r\ny", "\\| yes \\|", "``` | `", "a\\", "|\u2028|"]
    commits = []
    for n, value in enumerate(nasty):
        values = {"Gitstore-Learning": value, "Gitstore-Content-Digest": value[::-1], "Gitstore-Packet": "`" + value,
                  "Gitstore-Review-Digest": value}
        commits.append(Promoted(f"{n:040x}", value, values, title=f"T{value}", problems=[f"bad {value}", value]))
    commits.append(Promoted("f" * 40, "s", {}, None))
    text = Provenance("a..b", commits).markdown()
    rows = _table(text)
    assert len(rows) == len(commits) and all(len(row) == 5 for row in rows), rows
    assert [row[4][0] for row in rows] == ["**no**"] * len(nasty) + ["yes"]
    flat = [" ".join(value.split()) for value in nasty]
    for row, value in zip(rows, flat):
        assert row[1][1] == value and row[2][1] == value[::-1][:19] and row[3][1] == ("`" + value)[:19], row
        assert row[1][2] == [value, "T" + value], row  # the title, as code: anyone's words, never acted on
    assert rows[-1][1][1] == "-" and rows[-1][2][1] == "-" and rows[-1][3][1] == "-"
    markdown_it = pytest.importorskip("markdown_it")
    problems = text.split("**Does not verify:**")[1]
    items = [t for t in markdown_it.MarkdownIt("commonmark").parse(problems) if t.type == "inline"]
    assert len(items) == 2 * len(nasty)
    for item, expected in zip(items, [p for value in flat for p in (f"bad {value}", value)]):
        kinds = [child.type for child in item.children or []]
        assert kinds == ["code_inline", "text", "code_inline"] and item.children[2].content == expected, item
