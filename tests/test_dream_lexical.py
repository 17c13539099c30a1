"""The lexical labeler: deterministic themes from recurring words; paraphrases by different
people meet, chance meetings and unrelated texts do not; replies that object join their thread."""

from __future__ import annotations

from gitstore.dream.labelers import load
from gitstore.dream.labelers.lexical import LexicalLabeler
from gitstore.dream.view import Evidence

import pytest

from gitstore.errors import InvalidInput, UsageError


def piece(n: int, text: str, author: str = "", root: str | None = None, episode: str = "") -> Evidence:
    return Evidence(id=f"ev_{n:032x}", episode=episode or f"ep_{n:032x}", source="review-thread", harness="github",
                    type="comment", author=author or f"github:{n}", person=author or f"github:{n}",
                    at=f"2026-03-01T10:{n:02d}:00.000000Z", text=text, path="src/retry.py", role=None,
                    pull_request=n, branch=None, commit=None, local=False, origin=f"ev_{n:032x}", root=root, seq=n)


TEXTS = [
    "Retries need jittered backoff.",
    "Back off with jitter before retrying.",
    "Please add random jitter to the retry backoff here.",
    "Log the request id with every error so we can trace failures.",
    "Every error log line should carry the request id.",
    "Maybe you should use more emoji on this line.",
    "The German translation of this label is missing an umlaut.",
]


def labels(texts: list[str]) -> dict[str, list[int]]:
    run = LexicalLabeler().label([piece(n, t) for n, t in enumerate(texts)])
    found: dict[str, list[int]] = {}
    for label in run.labels:
        found.setdefault(label.theme, []).append(int(label.event[3:], 16))
    return found


def test_paraphrases_by_different_people_land_in_one_theme() -> None:
    assert labels(TEXTS) == {"backoff-jitter-retry": [0, 1, 2], "error-log-request": [3, 4]}


def test_the_two_phrasings_of_the_rule_alone_are_one_theme() -> None:
    assert list(labels(TEXTS[:2]).values()) == [[0, 1]]


def test_the_same_view_gives_the_same_labels() -> None:
    items = [piece(n, t) for n, t in enumerate(TEXTS)]
    assert LexicalLabeler().label(items).labels == LexicalLabeler().label(list(reversed(items))).labels


def test_spans_polarity_and_category() -> None:
    run = LexicalLabeler().label([piece(0, TEXTS[0]), piece(1, TEXTS[1]),
                                  piece(2, "We don't need jittered backoff for internal retries."),
                                  piece(3, "Fixed in abc123: retries now use jittered backoff.")])
    by_event = {int(label.event[3:], 16): label for label in run.labels}
    assert [TEXTS[0][a:b] for a, b in by_event[0].spans] == ["Retries", "jittered", "backoff"]
    assert by_event[0].polarity == "asks-for" and by_event[0].category == "convention"
    assert by_event[2].polarity == "objects-to"
    assert by_event[3].polarity == "reports-fixed" and by_event[3].category == "resolved-problem"


def test_a_reply_that_objects_takes_its_thread_s_theme() -> None:
    items = [piece(0, TEXTS[0], episode="ep_" + "a" * 32), piece(1, TEXTS[1]),
             piece(2, "I disagree, it is not needed for the internal queue.", root=f"ev_{0:032x}",
                   episode="ep_" + "a" * 32),
             piece(3, "Thanks, good point.", root=f"ev_{0:032x}", episode="ep_" + "a" * 32)]
    run = LexicalLabeler().label(items)
    reply = [label for label in run.labels if label.event == f"ev_{2:032x}"]
    theme = next(label.theme for label in run.labels if label.event == f"ev_{0:032x}")
    assert [(r.theme, r.polarity) for r in reply] == [(theme, "objects-to")]
    assert all(label.event != f"ev_{3:032x}" for label in run.labels)


def test_identifiers_code_spans_and_compounds() -> None:
    found = labels(["Read configuration through `settings.get`, never `os.environ` directly.",
                    "Don't read `os.environ` here; go through `settings.get` so the defaults apply.",
                    "Set a time out on the call.", "The timeout of this call is missing, set a timeout."])
    assert found == {"os-environ-settings-get-read": [0, 1], "call-timeout-set": [2, 3]}


def test_two_middling_words_met_by_chance_among_many_texts_are_no_theme() -> None:
    import random

    rng = random.Random(3)
    words = [f"w{n}" for n in range(300)]
    noise = [" ".join(rng.choice(words).replace("w", "word") + "x" for _ in range(12)) for _ in range(1500)]
    run = LexicalLabeler().label([piece(n % 60, t) for n, t in enumerate(noise)])
    assert run.labels == [] and run.usage["themes"] == 0


def test_options_are_checked_and_unknown_labelers_refused() -> None:
    with pytest.raises(InvalidInput, match="lexical labeler: minLift must be a positive integer"):
        load("lexical", {"minLift": 0})
    with pytest.raises(UsageError, match="unknown labeler 'oracle'"):
        load("oracle")
