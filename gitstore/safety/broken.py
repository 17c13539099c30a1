"""Tokens broken over lines: a credential with a shape of its own cut by line breaks.

A harness writes one message as several content blocks or streamed lines, and a transcript's
reader joins them with line breaks; a terminal or a mail client wraps a long token. A token cut
there is in two halves, each too short for its shape (``gh[pousr]_`` takes 36 characters after
it), yet anyone reading the stored text puts it back together. Where a word opens with the
prefix of a token shape (:func:`~gitstore.safety.secrets.shape_hits`) and its run of token
characters reaches the end of its line, the runs of the next lines (after nothing but line
breaks) are read joined to it; when the joined run is a token of that shape and the first line's
run alone is none, the whole of it goes, both halves and the breaks between them.

Each half must look random on its own (neither a filler nor a name), so a placeholder ending a
line or a word opening the next one is never joined into a token.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.secrets import shape_hits
from gitstore.safety.spans import Hit, Text
from gitstore.safety.values import looks_placeholder, names_something

# The openings of the shapes ``shape_hits`` knows, each at the start of a word.
_OPENING = lazy.Pattern(
    r"(?<![A-Za-z0-9_.+/-])(?:gh[pousr]_|github_pat_|A[KS]IA|xox[abposr]-|xapp-\d-|eyJ|sk-(?:ant-)?|[sr]k_(?:live|test|prod)_"
    r"|gl(?:pat|dt|rt|ptt|ft|soat|oas|cbt|imt)-|npm_|AIza|ya29\.|hf_|api_org_|SG\.|pypi-|hv[sb]\.|whsec_"
    r"|shp(?:at|ss|ca|pa)_|do[opr]_v1_|lin_api_|dp\.|dapi|glsa_|glc_|AGE-SECRET-KEY-1|PMAK-|key-|ATATT3"
    r"|sk\.eyJ1)"
)
_RUN = lazy.Pattern(r"[A-Za-z0-9_.+/=-]{0,1025}+")
_BREAK = lazy.Pattern(r"(?:\r?\n){1,2}(?=[A-Za-z0-9])")
_MOST_PIECES = 4  # a token cut more often than this is left to be read as it stands
_LONGEST = 1024  # nor is one whose pieces run longer


def broken_token_hits(text: Text) -> Iterator[Hit]:
    """Tokens cut by line breaks, each whole: from its opening to the end of its last piece."""
    raw = text.raw
    if "\n" not in raw:
        return
    for m in _OPENING.finditer(raw):
        hit = _broken_at(raw, m.start(), m.end())
        if hit is not None:
            yield hit


def broken_between(before: str, after: str) -> tuple[int, int, str] | None:
    """A token cut between two texts stored apart (two messages in a row, each half of it
    ending one and opening the next): where it starts in BEFORE, where it ends in AFTER and its
    kind; None when no token runs across."""
    tail, head = before[-_LONGEST:], after[:_LONGEST]
    if not tail or not head or "\n" in tail[-1] or not head[0].isalnum():
        return None
    for hit in broken_token_hits(Text.of(tail + "\n" + head)):
        if hit.start < len(tail) and hit.end > len(tail) + 1:
            return len(before) - len(tail) + hit.start, hit.end - len(tail) - 1, hit.kind
    return None


def _broken_at(raw: str, start: int, opened: int) -> Hit | None:
    """The token opening at START whose run is cut by line breaks, else None."""
    end = _RUN.match(raw, opened).end()
    joined = raw[start:end]
    gap = _BREAK.match(raw, end)
    if gap is None or len(joined) > _LONGEST or _OPENING.match(raw, gap.end()):
        return None  # not cut (the next line opens a token of its own), or too long to judge
    if _found(joined, 0) is not None or not _random(raw[opened:end]):
        return None  # whole on its line, or no key material before the break
    ends = [end]  # where each piece ends in RAW
    while len(ends) < _MOST_PIECES and len(joined) < _LONGEST:
        gap = _BREAK.match(raw, ends[-1])
        if gap is None:
            return None
        piece_end = _RUN.match(raw, gap.end()).end()
        piece = raw[gap.end():piece_end]
        if len(piece) > _LONGEST or _OPENING.match(piece) or not _random(piece):
            return None
        done = len(joined)
        joined += piece
        found = _found(joined, done)
        if found is not None:
            kind, token_end = found
            return Hit(start, gap.end() + token_end - done, kind, 1)
        ends.append(piece_end)
    return None


@functools.lru_cache(maxsize=256)
def _found(joined: str, done: int) -> tuple[str, int] | None:
    """The kind and end of the token JOINED opens with, when it runs past DONE."""
    for hit in shape_hits(Text.of(joined)):
        if hit.start == 0 and hit.end > done and not hit.keep:
            return hit.kind, min(hit.end, len(joined))
    return None


@functools.lru_cache(maxsize=256)
def _random(piece: str) -> bool:
    """Whether a piece of a token could be key material: not empty, no placeholder, no name."""
    return bool(piece) and not looks_placeholder(piece) and not names_something(piece)


__all__ = ["broken_between", "broken_token_hits"]
