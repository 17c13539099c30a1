"""Routing through index.md and quickstart.md to the owning page and section, the Route 1
renderer's smallest edit, and the promoted block's format."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from gitstore.promote import blocks
from gitstore.promote.routes import direct_edit
from gitstore.promote.routing import route, words
from gitstore.promote.snapshot import head_snapshot, Snapshot
from gitstore.promote.verify import cited_names

from .promotion_world import WIKI_FILES, commit_files, git


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    root = tmp_path_factory.mktemp("routing") / "repo"
    git(root.parent, "init", "-q", "-b", "main", str(root))
    extra = {
        "okf/wiki/index.md": WIKI_FILES["okf/wiki/index.md"] + "* [Contracts](contracts.md) - Every record.\n"
                             "\n# Subfolders\n\n* [ops](ops/index.md) - pages about ops\n",
        "okf/wiki/contracts.md": "---\ntype: Reference\ntitle: Contracts\ndescription: Every record.\n"
                                 "generated: { by: process:gitstore-wiki }\n---\n# Contracts\n\nRetries and backoff.\n",
        "okf/wiki/ops/index.md": "# Pages\n\n* [Deploys](deploys.md) - How releases are deployed.\n",
        "okf/wiki/ops/deploys.md": "---\ntype: Guide\ntitle: Deploys\ndescription: How releases are deployed.\n---\n"
                                   "# Deploys\n\nReleases go out on Tuesdays.\n",
    }
    commit_files(root, dict(WIKI_FILES, **extra))
    return head_snapshot(pygit2.Repository(str(root)))


def test_a_target_the_page_mentions_routes_to_it_and_its_section(snapshot: Snapshot) -> None:
    found = route(snapshot, "Retries use jitter", "Every retry uses jitter.", ["src/retry.py"])
    assert found.owner is not None and found.owner.page == "okf/wiki/reliability.md"
    assert found.owner.section == "Retries" and "it mentions src/retry.py" in found.owner.reasons


def test_words_of_the_quickstart_and_subfolder_indexes_route_too(snapshot: Snapshot) -> None:
    appends = route(snapshot, "Appends are batched", "The database takes records in batches.", [])
    assert appends.owner is not None and appends.owner.page == "okf/wiki/storage.md"
    deploys = route(snapshot, "Deploys on Tuesdays", "Releases are deployed on Tuesdays only.", [])
    assert deploys.owner is not None and deploys.owner.page == "okf/wiki/ops/deploys.md"


def test_no_owner_a_tie_and_pages_that_never_own(snapshot: Snapshot) -> None:
    assert "no page owns it" in str(route(snapshot, "Billing", "Invoices round up.", []).problem)
    tie = route(snapshot, "Both", "x", ["okf/wiki/storage.md", "okf/wiki/reliability.md"])
    assert tie.owner is None and "targets name 2 pages" in str(tie.problem)
    pages = {page for page, _ in route(snapshot, "Retries", "Retries and backoff.", []).scores}
    assert "okf/wiki/contracts.md" not in pages  # a process rewrites it
    assert not {p for p in pages if p.endswith(("index.md", "INSTRUCTIONS.md"))}
    named = route(snapshot, "Anything", "Anything at all.", ["okf/wiki/storage.md"])
    assert named.owner is not None and named.owner.page == "okf/wiki/storage.md"


def test_no_index_no_routing(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    commit_files(root, {"README.md": "# x\n"})
    found = route(head_snapshot(pygit2.Repository(str(root))), "T", "x", [])
    assert found.owner is None and found.problem == "there is no okf/wiki/index.md to route through"


def test_the_direct_edit_touches_only_the_end_of_its_section(snapshot: Snapshot) -> None:
    found = route(snapshot, "Retries use jitter", "Every retry uses jitter.", ["src/retry.py"])
    assert found.owner is not None
    block = blocks.render("lrn_" + "1" * 32, "sha256:" + "2" * 64, "Every retry uses jitter.",
                          [blocks.Citation("learning", "lrn_" + "1" * 32 + "@sha256:" + "2" * 64)])
    before = snapshot.text(found.owner.page) or ""
    after = direct_edit.render(snapshot, found.owner, block)
    assert after == before.replace("(src/retry.py).\n\n## Timeouts", "(src/retry.py).\n\n" + block + "\n## Timeouts")


def test_an_edit_at_the_end_of_a_page_keeps_one_final_newline(snapshot: Snapshot) -> None:
    found = route(snapshot, "Client timeouts", "Every call of the client has a timeout of ten seconds.", [])
    assert found.owner is not None and found.owner.section == "Timeouts"
    after = direct_edit.render(snapshot, found.owner, "BLOCK\n")
    assert after.endswith("Every call has a timeout.\n\nBLOCK\n")


def test_words_drop_common_words_and_plurals() -> None:
    assert words("The retries and Timeouts, with Backoffs") == {"retry", "timeout", "backoff"}


def test_blocks_round_trip_every_citation_form() -> None:
    citations = [blocks.Citation("source", "src/a.py@" + "a" * 40),
                 blocks.Citation("learning", "lrn_" + "1" * 32 + "@sha256:" + "2" * 64),
                 blocks.Citation("test", "pytest -q; echo `x` -> exit 0"),
                 blocks.Citation("url", "https://example.com/x accessed 2026-01-02")]
    text = "Intro.\n\n" + blocks.render("lrn_" + "1" * 32, "sha256:" + "2" * 64, "Line one.\nLine two.", citations)
    [found] = blocks.find(text)
    assert (found.line, found.statement, list(found.citations), found.cited_line) == (
        3, "Line one.\nLine two.", citations, 6)
    assert blocks.find("<!-- gitstore:promoted lrn_x -->") == []
    assert blocks.markers_without_shape("a\n<!-- gitstore:promoted lrn_x -->\n") == [2]


def test_cited_paths_and_symbols() -> None:
    paths, symbols = cited_names("In src/retry.py and `okf/wiki/`, `Store.append` and `retry()` read "
                                 "`config.json:3`; and/or https://example.com/x.html, `make test`, example.com/a.py.")
    assert paths == ["okf/wiki/", "config.json", "src/retry.py"] and symbols == ["Store.append", "retry()"]


def test_cited_paths_are_read_whole() -> None:
    """A leading ``/`` and ``.`` or ``..`` segments are part of the path, never cut off to
    leave a harmless part of it (``src/``) to check."""
    paths, _ = cited_names("From /src/ghost_settings.py, src/./ghost.py, ./src/a.py and src/../../outside/retry.py "
                           "(see /okf/wiki/); not https://example.com/src/x.py, ~/src/y.py, and/or 24/7, nor a "
                           "link's target, which the wiki gate resolves from the page: [storage](../../docs/storage.md).")
    assert paths == ["/src/ghost_settings.py", "src/./ghost.py", "./src/a.py", "src/../../outside/retry.py",
                     "/okf/wiki/"]
