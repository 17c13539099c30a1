"""A folder of review material imported as it fills: new files only, the folder never changed,
a bad file reported and tried again, deliveries for another repository refused alone."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from gitstore.capture.inbox import import_folder
from gitstore.errors import InvalidInput
from gitstore.context import Context

from .conftest import shared
from .world import ready_repo

BY = "git:bot@example.com"


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "hello", origin="https://github.com/Codertocat/Hello-World.git")


def test_new_files_only_and_the_folder_untouched(ctx: Context, tmp_path: Path) -> None:
    hooks = shared("reviews", "octokit-webhooks")
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", inbox / "a.json")
    shutil.copy(hooks / "pull_request_review" / "submitted.payload.json", inbox / "b.json")
    (inbox / ".c.json").write_text("{")  # still being written
    (inbox / "d.json").write_text("{not json")
    other = json.loads((hooks / "issue_comment" / "created.payload.json").read_text())
    elsewhere = copy.deepcopy(other)
    elsewhere["repository"]["full_name"] = "someone/else"
    (inbox / "e.json").write_text(json.dumps(elsewhere))
    before = sorted((p.name, p.read_bytes()) for p in inbox.iterdir())
    first = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in first.imports] == [["a.json", "b.json"]], "deliveries of one repository together"
    assert len(first.problems) == 2
    assert first.problems[0].startswith("d.json: ") and first.problems[1].startswith("e.json: ")
    assert "someone/else" in first.problems[1]
    assert sorted((p.name, p.read_bytes()) for p in inbox.iterdir()) == before, "the folder is never changed"
    (inbox / "d.json").write_text(json.dumps(other))
    second = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in second.imports] == [["d.json"]] and second.already == 2
    (inbox / "a.json").unlink()
    import_folder(ctx, inbox, BY, ledger)
    assert len(json.loads(ledger.read_text())["files"]) == 2, "the ledger keeps only files still there"
    assert len(list(ctx.store.items(["import"]))) == 2


def test_a_missing_folder_is_one_error(ctx: Context, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such folder"):
        import_folder(ctx, tmp_path / "nowhere", BY, tmp_path / "ledger.json")
