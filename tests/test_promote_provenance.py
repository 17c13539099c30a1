"""``gitstore provenance BASE..HEAD``: each promotion commit with its learning and digests, and
the promotion gate's own verdict on it (a forged trailer does not verify)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitstore.cli import main
from gitstore.context import Context
from gitstore.ops.promote import promote
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
    assert f"| `{result.commit[:12]}` | `{learning['id']}` Retries use jitter | `{learning['contentDigest'][:19]}` |" in table
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
