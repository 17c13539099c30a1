"""Tokens broken over lines: a credential with a shape of its own cut by line breaks.

A harness writes one message as several content blocks or streamed lines, and a transcript's
reader joins them with line breaks; a terminal or a mail client wraps a long token. A token cut
there is in two halves, each too short for its shape (``gh[pousr]_`` takes 36 characters after
it), yet anyone reading the stored text puts it back together. Where a word opens with the
prefix of a token shape (:func:`~gitstore.safety.secrets.shape_hits`) and its run of token
characters reaches the end of its line, the runs of the next lines (after a break: line breaks as
they are, as ``\\n`` in a string or as ``<br>``, and what a quote, a reply, a diff or joined
strings wrap a line in, :data:`_BREAK`) are read joined to it; when the joined run is a token of
that shape and the first line's run alone is none, the whole of it goes, all its pieces and the
breaks between them. A token cut inside its opening (``gh`` / ``p_...``) is read the same way,
and a token whole on its first line whose shape has no fixed length (an Anthropic key) takes the
lines that go on running it.

Each piece long enough to judge must look random on its own (neither a filler nor a name), and so
must the pieces joined, so a placeholder ending a line or a word opening the next one is never
joined into a token.

Each step of a walk reads the pieces joined so far for a token's shape. A piece holding an
opening of its own (``xxxx=key-``, the next line's token, walked from there) is a walk's last, so
lines each ending in an opening do not each walk all the lines after them; and a text's walks
together read no more than a few times its length (:class:`_Walked`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.secrets import shape_hits
from gitstore.safety.spans import Hit, Text
from gitstore.safety.values import looks_placeholder, names_something

# The openings of the shapes ``shape_hits`` knows, each at the start of a word (or after the
# ``+`` of a diff's added line); of the shorter shapes whose opening letter opens many words
# (a 36-character ``ico-`` key) none.
_OPENINGS = (
    r"gh[pousr]_|github_pat_|A[KS]IA|xox[abposre][-.]|xapp-\d-|eyJ|sk-(?:ant-)?|[sr]k_(?:live|test|prod)_"
    r"|gl(?:pat|dt|rt|ptt|ft|soat|oas|cbt|imt|ffct|agent)-|npm_|AIza|ya29\.|hf_|api_org_|SG\.|pypi-|hv[sb]\.|whsec_"
    r"|shp(?:at|ss|ca|pa)_|do[opr]_v1_|lin_api_|dp\.|dapi|glsa_|glc_|AGE-SECRET-KEY-1|PMAK-|key-|ATATT3"
    r"|sk\.eyJ1|A(?:BIA|CCA|BSK|KCp)|bedrock-api-key-|v1\.0-|HRKU-AA|fo1_|fm(?:1[ar]|2)_|sha256~|dt0c01\.|ops_eyJ"
    r"|dckr_(?:pat|oat)_|CCIPAT_|[ps]at\.|pul-|pnu_|sgp_|sntry[us]_|rdme_|rubygems_|CLOJARS_|pplx-|gsk_|xai-"
    r"|r8_|EAAA|shippo_|duffel_|EZ[AT]K|access-(?:sandbox|development|production)-|x(?:keysib|smtpsib)-|ntn_"
    r"|pscale_|sbp_|sb_secret_|pat[A-Za-z0-9]{14}\.|bkua_|sq(?:[upa]_|0(?:atp|csp)-)|A(?:PI|3)-|p8e-"
)
_OPENING = lazy.Pattern(rf"(?<![A-Za-z0-9_./-])(?<![A-Za-z0-9_.+/-]\+)(?:{_OPENINGS})")
_RUN = lazy.Pattern(r"[A-Za-z0-9_.+/=-]{0,1025}+")
# A break: line breaks (as they are, as ``\n`` in a string, as ``<br>``), up to three blank
# lines between, and what wraps a line in a quote, a reply or a diff: a closing quote and a
# ``+`` joining strings before it, indentation, ``> `` marks, a diff's ``+`` and an opening
# quote after it; or a zero-width character alone.
_NEWLINE = r"(?:\r\n?|\n|\\r\\n|\\n|<br[ \t]*/?>)"
_BREAK = lazy.Pattern(
    rf"(?:[ \t]*+(?:[\"'`][ \t]*+)?(?:\+[ \t]*+)?(?:{_NEWLINE}[ \t]*+(?:>[ \t]*+)*+){{1,4}}+\+?[ \t]*+[\"'`]?"
    r"|[\u200b\u200c\u200d\u2060\ufeff])(?=[A-Za-z0-9])"
)
_CUT_BREAK = lazy.Pattern(_BREAK.pattern[:-len("(?=[A-Za-z0-9])")] + "(?=[A-Za-z0-9_-])")  # "ghp\\n_..."
_BREAKING = ("\n", "\r", "\\n", "<br", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
# A token's opening cut itself: the first characters of an opening ending a line, the rest
# opening the next.
_CUTS = (
    r"g|gh|ghp|gho|ghu|ghs|ghr|gi|git|gith|githu|github|github_|github_p|github_pa|github_pat"
    r"|s|sk|sk-|sk-a|sk-an|sk-ant|x|xo|xox|xoxb|xoxp|A|AK|AKI|AS|ASI|gl|glp|glpa|glpat"
)
# Either, in one walk: an opening whole, or one cut (the group ``cut``). Led by the letters they
# open with (``_OPENING_LETTERS``): opening with a look-behind, the pattern was tried whole at each
# character of a text, some 0.07 us a byte; the engine checks the letter first.
_OPENING_LETTERS = "ACEHPSabdefghklnoprsvwxy"
_OPENING_OR_CUT = lazy.Pattern(
    rf"(?=[{_OPENING_LETTERS}])(?<![A-Za-z0-9_./-])(?<![A-Za-z0-9_.+/-]\+)(?:{_OPENINGS}|(?P<cut>{_CUTS})(?={_CUT_BREAK.pattern}))"
)
_MOST_PIECES = 16  # a token cut more often than this is left to be read as it stands
_LONGEST = 1024  # nor is one whose pieces run longer
_SHORTEST = 15  # no shape is shorter (a Slack token: xoxb- and 10 characters)
_JUDGED = 8  # a first piece this long must look random on its own
_WALKED_LEAST = 1 << 16  # characters a text's walks may read for shapes, at least (a few whole walks)
_WALKED_PER_CHARACTER = 8  # and this many for each character of the text


class _Walked:
    """The characters a text's walks may still read for a token's shape: a few times the
    text's length, and never less than a few walks of the longest token. A text of openings
    one a line, each walking the lines after it, is read a bounded number of times over."""

    def __init__(self, raw: str) -> None:
        self.left = max(_WALKED_LEAST, _WALKED_PER_CHARACTER * len(raw))

    def read(self, joined: str) -> bool:
        """Spend the reading of JOINED: False when the text's walks have read all they may."""
        self.left -= len(joined)
        return self.left >= 0


def broken_token_hits(text: Text) -> Iterator[Hit]:
    """Tokens cut by line breaks, each whole: from its opening to the end of its last piece."""
    raw = text.raw
    if not any(breaking in raw for breaking in _BREAKING):
        return
    walked = _Walked(raw)
    for m in _OPENING_OR_CUT.finditer(raw):
        if walked.left < 0:
            return
        hit = _broken_at(raw, m.start(), m.end(), walked, cut=m.group("cut") is not None)
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


def _broken_at(raw: str, start: int, opened: int, walked: _Walked, cut: bool = False) -> Hit | None:
    """The token opening at START whose run is cut by line breaks, else None (CUT: cut inside
    its opening, which ends at OPENED). A token whole on its first line whose shape runs on
    (an Anthropic key has no fixed length) takes the pieces that go on running it."""
    end = opened if cut else _RUN.match(raw, opened).end()
    joined = raw[start:end]
    gap = (_CUT_BREAK if cut else _BREAK).match(raw, end)
    if gap is None or len(joined) > _LONGEST or _OPENING.match(raw, gap.end()):
        return None  # not cut (the next line opens a token of its own), or too long to judge
    unjudged = len(raw[opened:end]) < _JUDGED  # a piece too short to judge is judged joined
    if not unjudged and not _random(raw[opened:end]):
        return None  # no key material before the break
    ends, last, width = [end], None, 0  # where each piece ends in RAW; the token found so far
    while len(ends) < _MOST_PIECES and len(joined) < _LONGEST:
        if len(ends) > 1:
            gap = _BREAK.match(raw, ends[-1])
            if gap is None:
                break
        piece_end = _RUN.match(raw, gap.end()).end()
        piece = raw[gap.end():piece_end]
        judged = last is not None or len(piece) >= _JUDGED  # a token found is run on only by key material
        if len(piece) > _LONGEST or _OPENING.match(piece) or (judged and not _random(piece)):
            break
        unjudged = unjudged or not judged
        found = None
        for before in (joined, joined[:-1]) if joined.endswith("-") else (joined,):  # "abc-\ndef"
            if len(before) + len(piece) < _SHORTEST:
                continue
            if not walked.read(before + piece):
                return None  # the text's walks have read all they may
            if (found := _found(before + piece)) is not None:
                joined = before
                break
        done = len(joined)
        joined += piece
        if found is None:
            if last is not None:
                break  # the token found runs no further
        else:
            kind, token_end = found
            if token_end <= done or (unjudged and not _random(joined[opened - start : token_end])):
                break  # a token ending before this piece (whole on its first line), or no key material
            if last is None and not judged and done >= _SHORTEST and _found(joined[:done]) is not None:
                break  # a token whole on its first line, which a piece too short to judge does not run on
            last = Hit(start, gap.end() + token_end - done, kind, 1)
            if token_end < len(joined):
                break
        if width and len(piece) < width:
            break  # a piece shorter than the one before is the last: lines wrap at one width
        if _opens_inside(raw, gap.end(), piece_end):
            break  # a piece holding an opening of its own ("xxxx=key-") is the last: that one is walked on its own
        width = width or len(piece)
        ends.append(piece_end)
    return last


def _opens_inside(raw: str, start: int, end: int) -> bool:
    """Whether the piece of RAW from START to END holds an opening, whole or cut, after its
    first character (after an ``=`` in it: no other character of a run goes before one)."""
    if "=" not in raw[start:end]:
        return False
    inner = _OPENING_OR_CUT.search(raw, start + 1, min(len(raw), end + 64))
    return inner is not None and inner.start() < end


@functools.lru_cache(maxsize=256)
def _found(joined: str) -> tuple[str, int] | None:
    """The kind and end of the token JOINED opens with."""
    for hit in shape_hits(Text.of(joined)):
        if hit.start == 0 and not hit.keep:
            return hit.kind, min(hit.end, len(joined))
    return None


@functools.lru_cache(maxsize=256)
def _random(piece: str) -> bool:
    """Whether a piece of a token could be key material: not empty, no placeholder, no name."""
    return bool(piece) and not looks_placeholder(piece) and not names_something(piece)


__all__ = ["broken_between", "broken_token_hits"]
