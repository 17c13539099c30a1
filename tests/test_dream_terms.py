"""Words as the dream compares them: stems, stop words, identifiers, quotes, compounds, copies."""

from __future__ import annotations

from gitstore.dream import terms


def test_content_words_are_stemmed_without_stop_words_or_chatter() -> None:
    found = terms.tokens("Nit: please make sure the retries are jittered, thanks!")
    assert [w[0] for w in found.words()] == ["retri", "jitter"]


def test_identifiers_code_spans_and_paths() -> None:
    found = terms.tokens("Use `retry_with_backoff` from src/http/retry.py, not time.sleep or fetchUser().")
    assert {i[0] for i in found.identifiers} == {"id:retry_with_backoff", "id:time.sleep", "id:fetchuser"}
    assert found.globs == ("src/http/*.py",)
    assert {"retri", "backoff", "sleep", "fetch", "user"} <= found.terms()


def test_positions_point_into_the_text_however_long_and_words_are_shared_between_texts() -> None:
    text = "filler " * 12_000 + "Don't retry without jitter"  # positions past 65,535
    found = terms.tokens(text)
    words = found.words()
    assert [(w, text[s:e].lower()) for w, s, e in words[-2:]] == [("retri", "retry"), ("jitter", "jitter")]
    assert list(terms.with_spans(tuple(w[0] for w in words), terms.spans_of(words))) == list(words)
    assert found.spelt[-4:] == ("don't", "retry", "without", "jitter")
    other = terms.tokens("retry with jitter")
    assert other.spelt[0] is found.spelt[-3]  # one string per word for a whole corpus


def test_quoted_lines_and_code_blocks_say_nothing_of_one_s_own() -> None:
    text = "> Retries need jittered backoff\n\n```\nretry(jitter=True)\n```\nAgreed."
    assert terms.tokens(text).terms() == set()
    assert len(terms.masked(text)) == len(text)
    assert terms.quoted(text) == " Retries need jittered backoff"


def test_words_written_apart_become_one_when_the_corpus_writes_them_as_one() -> None:
    vocabulary = terms.Vocabulary.of({"backoff", "rollback", "revers", "jitter"})
    assert [w[0] for w in terms.tokens("back off with jitter").words(vocabulary)] == ["backoff", "jitter"]
    assert [w[0] for w in terms.tokens("we roll back").words(vocabulary)] == ["rollback"]
    assert [w[0] for w in terms.tokens("irreversible").words(vocabulary)] == ["revers"]
    assert [w[0] for w in terms.tokens("back off").words()] == []


def test_sameness_sees_copies_and_quotes_introduced_in_one_s_own_words() -> None:
    whole, parts = terms.sameness("Avoid global mutable state in handlers. See the notes.")
    again, quoting = terms.sameness("As Bob said: avoid global mutable state in handlers.")
    assert whole == terms.sameness("avoid GLOBAL mutable state in handlers!  See the notes")[0]
    assert parts[0] in quoting


def test_globs() -> None:
    assert terms.glob_of("src/api/handlers.py") == "src/api/*.py"
    assert terms.glob_of("Makefile") == "*"
    assert terms.glob_of("./docs/a.md") == "docs/*.md"


def test_an_edit_still_says_what_it_said_until_rewritten() -> None:
    before = "Please add random jitter to the retry backoff in this loop."
    assert terms.still_says("Please add random jitter to the retry backof in this loop.", before), "a typo"
    assert terms.still_says(before + " Thanks!", before)
    assert not terms.still_says("Each migration must ship a down step so that we can roll back.", before)
    assert not terms.still_says(before + " Every migration needs a down step to roll back.", before)
    assert terms.still_says("LGTM!", "lgtm") and not terms.still_says("LGTM", "Ship it")


_LONG = ("Retries need jittered backoff, otherwise every client hammers the API at once. "
         "We saw this during the outage last week: all the workers woke up together and the gateway fell over. "
         "Please add random jitter to the retry loop in the client and cap the delay at thirty seconds. "
         "The sleep helper in the utilities module already takes a range, so this is a small change.")


def test_a_subject_appended_to_a_long_comment_is_not_what_it_said() -> None:
    """A long comment leaves room for a whole sentence of new words within two thirds of its
    terms: a sentence the edit adds on another subject still makes it another comment, while
    a fix inside a sentence, a word added or "Thanks!" appended does not."""
    assert not terms.still_says(_LONG + " Every migration needs a down step to roll back.", _LONG)
    assert not terms.still_says(_LONG + " Also, retries aside, every migration needs a down step.", _LONG)
    assert terms.still_says(_LONG.replace("thirty", "sixty"), _LONG)
    assert terms.still_says(_LONG.replace("gateway", "load balancer in front of the gateway"), _LONG)
    assert terms.still_says(_LONG + " Thanks, Alice! Also add a timeout.", _LONG)
