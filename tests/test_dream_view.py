"""The frozen view: only what the purpose may use, decided at read time; origins count copies,
quotes and replays once; learnings show content only while their evidence serves."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from gitstore.dream.view import FrozenView, first_versions, take
from gitstore.ops import consent
from gitstore.context import Context

from . import dream_world as w
from .world import Thread, accepted, propose, ref

_NAIVE = "Retries need jittered backoff, otherwise every client hammers the naïve API loop at once."


def frozen(ctx: Context, purpose: str = "instruction", since: str | None = None) -> FrozenView:
    return take(ctx.view(), ctx.workspace.repo, purpose, since)


def test_only_what_the_purpose_may_use_is_in_the_view(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    thread = Thread(ctx, 7, "700", w.at(0))
    first = thread.comment("700", "Retries need jittered backoff.", w.at(0), author="github:1")
    edit = thread.edit(first, "700", "Retries need jittered backoff with a cap.", w.at(5))
    gone = thread.comment("701", "Please cache the schema between test runs.", w.at(6), author="github:2")
    thread.retract(gone, w.at(7))
    thread.label(edit, "retry-jitter", w.at(8))
    thread.save()
    early = Thread(ctx, 8, "800", "2025-06-01T00:00:00.000000Z")
    early.comment("800", "Written before any grant covered it.", "2025-06-01T00:00:00.000000Z")
    early.save()
    view = frozen(ctx)
    assert list(view.evidence) == [edit["id"]]
    assert view.excluded == {"superseded by an edit": 1, "deleted (retracted)": 1,
                             "no active grant permits the purpose": 1}
    assert [s.theme for s in view.labels[edit["id"]]] == ["retry-jitter"]
    assert set(view.citable) == {first["id"], edit["id"]}
    assert frozen(ctx, "training").evidence == {}


def test_every_version_of_an_edited_comment_is_known_by_its_first(tmp_path: Path) -> None:
    """A typo fixed, a word added, "Thanks!" appended: the same comment in its current words."""
    ctx = w.repo(tmp_path)
    thread = Thread(ctx, 7, "100", w.at(0))
    first = thread.comment("100", "Retries need jitterd backoff in the client.", w.at(0))
    second = thread.edit(first, "100", "Retries need jittered backoff in the client.", w.at(1))
    third = thread.edit(second, "100", "Retries need jittered backoff in the client. Thanks!", w.at(2))
    other = thread.comment("101", "Add a timeout to the client.", w.at(3))
    thread.save()
    view = frozen(ctx)
    assert {view.comment(e["id"]) for e in (first, second, third)} == {first["id"]}
    assert view.comment(other["id"]) == other["id"], "an unedited comment is its own"


def test_an_edit_that_is_no_longer_the_same_comment_is_a_comment_of_its_own(tmp_path: Path) -> None:
    """An edit names its parent, and anyone who can push can store one naming any parent: it is
    a version of that comment only when written in its thread, by its author, of its source
    comment, and still saying what it said. A rewrite starts a comment of its own, which its own
    later fixes are versions of."""
    ctx = w.repo(tmp_path)
    thread = Thread(ctx, 7, "100", w.at(0))
    first = thread.comment("100", "Retries need jittered backoff in the client.", w.at(0), author="github:1")
    rewrite = thread.edit(first, "100", "Every migration needs a down step so we can roll back.", w.at(1))
    fixed = thread.edit(rewrite, "100", "Every migration needs a down step so we can roll back!", w.at(2))
    same = "Retries need jittered backoff in the client. Thanks!"
    stranger = thread.event("edit", "stranger", w.at(3), "github:666", parent=first["id"], text=same,
                            sourceId="github:comment:100")
    elsewhere = thread.event("edit", "elsewhere", w.at(4), "github:1", parent=first["id"], text=same,
                             sourceId="github:comment:555")
    thread.save()
    other = Thread(ctx, 8, "800", w.at(5))
    moved = other.event("edit", "moved", w.at(5), "github:1", parent=first["id"], text=same,
                        sourceId="github:comment:100")
    other.save()
    versions = first_versions(ctx.view())
    assert versions.get(rewrite["id"], rewrite["id"]) == rewrite["id"], "another subject"
    assert versions[fixed["id"]] == rewrite["id"], "a fix of the rewrite is a version of it"
    for forged in (stranger, elsewhere, moved):
        assert forged["id"] not in versions, forged


def test_a_subject_appended_to_a_long_comment_starts_a_comment_of_its_own(tmp_path: Path) -> None:
    """A long comment keeps two thirds of its terms with a whole sentence on another subject
    added: the edit is still its author's comment in its current words, yet no decision on what
    it said before reaches it; a fix inside its sentences is the same comment."""
    ctx = w.repo(tmp_path)
    thread = Thread(ctx, 7, "100", w.at(0))
    long = ("Retries need jittered backoff, otherwise every client hammers the API at once. "
            "We saw this in the outage last week: the workers woke up together and the gateway fell over. "
            "Please add random jitter to the retry loop in the client and cap the delay at thirty seconds. "
            "The sleep helper in the utilities module already takes a range, so this is a small change.")
    first = thread.comment("100", long, w.at(0))
    fixed = thread.edit(first, "100", long.replace("thirty", "sixty"), w.at(1))
    added = thread.edit(fixed, "100", long + " Every migration needs a down step so we can roll back.", w.at(2))
    thread.save()
    view = frozen(ctx)
    assert view.comment(fixed["id"]) == first["id"]
    assert view.comment(added["id"]) == added["id"], "another subject"
    assert set(view.evidence) == {added["id"]}, "the author's edit is the comment's current words"


def test_a_withdrawal_takes_evidence_and_its_labels_out_at_once(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    [event] = w.comment(ctx, 3, "github:1", "Retries need jittered backoff.", 0)
    thread = Thread(ctx, 3, "x", w.at(0))
    thread.pending = []
    thread.id = event["episode"]
    thread.label(event, "retry-jitter", w.at(1))
    thread.save()
    assert frozen(ctx).labels
    grant = next(iter(ctx.view().grants))
    consent.withdraw(ctx, w.BY, grant, ["instruction"], "paused")
    view = frozen(ctx)
    assert view.evidence == {} and view.labels == {} and view.citable == {}
    assert len(frozen(ctx, "review").evidence) == 1


def test_copies_quotes_and_pastes_share_one_origin(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    text = "Avoid global mutable state in request handlers."
    [original] = w.comment(ctx, 1, "github:1", text, 0)
    [pasted] = w.comment(ctx, 2, "github:1", text, 10)
    [quoted] = w.comment(ctx, 3, "github:2", f"> {text}\n\n+1", 20)
    [lead] = w.comment(ctx, 4, "github:3", "As @someone said: avoid global mutable state in request handlers.", 30)
    [own] = w.comment(ctx, 5, "github:4", "Global mutable state in handlers breaks under threads, avoid it.", 40)
    view = frozen(ctx)
    origins = {e: view.evidence[e].origin for e in (pasted["id"], quoted["id"], lead["id"], own["id"])}
    assert origins == {pasted["id"]: original["id"], quoted["id"]: original["id"], lead["id"]: original["id"],
                       own["id"]: own["id"]}


@pytest.mark.parametrize("copy", [
    pytest.param(unicodedata.normalize("NFD", _NAIVE), id="decomposed-accents"),
    pytest.param(_NAIVE.replace("API", "\uff21\uff30\uff29"), id="full-width-letters"),
    pytest.param(_NAIVE.replace("backoff", "backo\ufb00"), id="ligature"),
    pytest.param(_NAIVE.replace("the ", "th\u0435 "), id="look-alike-letter"),
    pytest.param(_NAIVE.replace("naïve", "naive"), id="accent-dropped"),
    pytest.param(f"As @alice said in #11: {_NAIVE}", id="long-lead-in"),
    pytest.param(f"+1 to what @alice wrote: {_NAIVE}", id="assent-lead-in"),
    pytest.param(f"<blockquote>{_NAIVE}</blockquote>\nAgreed.", id="html-blockquote"),
    pytest.param(f"<BLOCKQUOTE class=x>\n{_NAIVE}\n</BLOCKQUOTE>\n\n+1", id="html-blockquote-upper"),
    pytest.param(_NAIVE.replace(" ", "&nbsp;"), id="html-entity-spaces"),
    pytest.param(_NAIVE.replace("the ", "&#116;he "), id="html-entity-letter"),
    pytest.param(_NAIVE.replace("backoff", "back<!-- a b c d e f g h i j k l -->off"), id="html-comment"),
    pytest.param(_NAIVE.replace("backoff", "<b>back</b>off"), id="inline-tags"),
    pytest.param(f"[{_NAIVE[:20]}](https://example.com/a/b/c/d/e/f/g/h){_NAIVE[20:]}", id="markdown-link"),
])
def test_a_copy_tweaked_in_its_letters_or_quoted_shares_the_origin(tmp_path: Path, copy: str) -> None:
    """Copies that read the same (other Unicode forms of the same letters, a look-alike letter,
    a lead-in of one's own, an HTML quote with a word of assent) are one origin, not two."""
    ctx = w.repo(tmp_path)
    [original] = w.comment(ctx, 11, "github:101", _NAIVE, 0)
    [pasted] = w.comment(ctx, 12, "github:102", copy, 10)
    assert frozen(ctx).evidence[pasted["id"]].origin == original["id"]


@pytest.mark.parametrize("copy, copied", [
    pytest.param(f"{_NAIVE} Saw exactly the same thing happen on my own branch earlier today, twice.", True,
                 id="remark-after"),
    pytest.param(f"Same here, we hit this on my side as well last week. {_NAIVE}", True,
                 id="remark-before"),
    pytest.param(f"{_NAIVE} Our deploy last week failed when all the workers reconnected to the queue together "
                 "after the outage, and the dashboard stayed red for an hour.", False, id="more-of-one-s-own"),
])
def test_a_long_sentence_pasted_with_a_remark_shares_the_origin(tmp_path: Path, copy: str, copied: bool) -> None:
    """A comment pasted by a second account with a sentence of its own beside it ("Saw exactly the
    same thing ...", too long for the pasted text's word pairs to make it a near copy) is no
    second origin: most of its words are the first one's. One saying more of its own than it
    repeats is a comment of its own."""
    ctx = w.repo(tmp_path)
    [original] = w.comment(ctx, 11, "github:101", _NAIVE, 0)
    [pasted] = w.comment(ctx, 12, "github:102", copy, 10)
    assert (frozen(ctx).evidence[pasted["id"]].origin == original["id"]) is copied


_SQL = "Log every SQL query at INFO level, including its bound parameters."


@pytest.mark.parametrize("copy", [
    pytest.param(_SQL.replace("every", "each"), id="a-word-swapped"),
    pytest.param(_SQL.replace("its bound", "all its bound"), id="a-word-added"),
    pytest.param(_SQL.replace("query", "querry"), id="a-word-misspelt"),
])
def test_a_copy_with_a_word_changed_shares_the_origin(tmp_path: Path, copy: str) -> None:
    """A second account pasting one comment with a word swapped, added or misspelt is no second
    origin: two people saying one thing in their own words share far fewer of its words."""
    ctx = w.repo(tmp_path)
    [original] = w.comment(ctx, 11, "github:101", _SQL, 0)
    [pasted] = w.comment(ctx, 12, "github:102", copy, 10)
    [own] = w.comment(ctx, 13, "github:103", "Please log each SQL query at INFO with the bound parameters so we "
                      "can debug prod.", 20)
    [short] = w.comment(ctx, 14, "github:104", "Log every SQL query at INFO.", 30)
    view = frozen(ctx)
    assert view.evidence[pasted["id"]].origin == original["id"]
    assert view.evidence[own["id"]].origin == own["id"] and view.evidence[short["id"]].origin == short["id"]


def test_a_sentence_of_ones_own_before_a_colon_is_not_a_lead_in(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.comment(ctx, 11, "github:101", _NAIVE, 0)
    [own] = w.comment(ctx, 12, "github:102", "The retry loop must cap its total wait at a minute: "
                      "after that the caller gives up anyway.", 10)
    assert frozen(ctx).evidence[own["id"]].origin == own["id"]


def test_a_replayed_session_under_another_file_name_is_a_copy(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    text = "The database fixtures are slow, cache the schema between test runs."
    w.session(ctx, tmp_path / "sessions", "fixtures", text, with_id=False)
    w.session(ctx, tmp_path / "sessions", "fixtures-replay", text, with_id=False)
    view = frozen(ctx)
    pieces = [e for e in view.items() if e.text == text]
    assert len({e.episode for e in pieces}) == 2 and len({e.origin for e in pieces}) == 1
    assert all(e.local and e.person == "local:session-owner" and e.source == "agent-session" for e in pieces)
    assert view.heads and all(str(h).startswith("records/") for h in view.heads)


def test_a_learning_shows_its_content_only_while_its_evidence_serves(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    [event] = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)
    learning = accepted(ctx, propose(ctx, [ref(event)]))
    seen = frozen(ctx).learnings[learning["id"]]
    assert seen.visible and seen.usable and seen.text.startswith("Every retry loop")
    grant = next(iter(ctx.view().grants))
    consent.withdraw(ctx, w.BY, grant, ["instruction"], "paused")
    hidden = frozen(ctx).learnings[learning["id"]]
    assert not hidden.visible and not hidden.usable and hidden.text == "" and hidden.title == ""
    assert "no active grant permits instruction" in hidden.stale


def test_paths_at_head_and_the_window(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    root = ctx.workspace.root
    (root / "src").mkdir()
    (root / "src" / "retry.py").write_text("pass\n")
    import subprocess

    subprocess.run(["git", "add", "."], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "code"], cwd=root, check=True)
    w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0, path="src/retry.py")
    w.comment(ctx, 2, "github:2", "Back off with jitter.", 0, path="src/gone.py", key="late")
    view = frozen(ctx)
    assert view.paths_at_head == {"src/retry.py"} and view.commit is not None
    assert frozen(ctx, since=w.at(1)).evidence == {}


def test_a_copy_inside_the_window_keeps_the_origin_written_before_it(tmp_path: Path) -> None:
    """Origins are worked out over all the purpose may use: a comment pasted again inside the
    window repeats one written before it, and memory is found by that comment."""
    ctx = w.repo(tmp_path)
    [early] = w.comment(ctx, 1, "github:1", "Retries need jittered backoff, otherwise every client hammers the API.", 0)
    [late] = w.comment(ctx, 2, "github:2", "Retries need jittered backoff, otherwise every client hammers the API.", 120)
    view = frozen(ctx, since=w.at(60))
    assert list(view.evidence) == [late["id"]] and view.evidence[late["id"]].origin == early["id"]


def test_a_thread_s_first_comment_edited_after_its_replies_is_still_their_root(tmp_path: Path) -> None:
    """An edit carries the time of the edit: were comments taken in that order, a typo fixed in
    a thread's first comment after a reply would make the reply the thread's first, and the
    replies would be read as answering it (the labeler gives a reply the theme of the comment it
    answers). Comments are taken in the order they were first written."""
    ctx = w.repo(tmp_path)
    thread = Thread(ctx, 7, "900", w.at(0))
    ask = thread.comment("900", "Retries need jitterd backoff in the client.", w.at(0), author="github:1")
    reply = thread.comment("901", "Good catch, I will add it.", w.at(1), author="github:2")
    edit = thread.edit(ask, "900", "Retries need jittered backoff in the client.", w.at(50))
    thread.save()
    view = frozen(ctx)
    assert view.evidence[edit["id"]].root is None, "the first comment of its thread"
    assert view.evidence[reply["id"]].root == edit["id"]
