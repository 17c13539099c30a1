"""Words for lexical recall, in any script, without ICU.

Text is normalised (NFKC, so full-width letters and half-width katakana become their usual
forms, then case-folded) and cut into runs of letters, digits and combining marks. Each run is
split by script:

- scripts written without spaces between words (Han, Hiragana, Katakana, Hangul, Thai, Lao,
  Khmer, Myanmar) give overlapping character bigrams, the usual ICU-free segmentation for
  Chinese and Japanese (a run of one character gives itself). Korean is spaced, but particles
  stick to the word before them (``저장소에서``), so its syllables are paired the same way and
  ``저장소`` still meets ``저장소에서``;
- every other script is split at Unicode word boundaries, then at underscores and camel case
  (``exponentialBackoff`` gives ``exponential`` and ``backoff``). Words in plain ASCII are
  stemmed with the Snowball English stemmer (``retries`` and ``retry`` meet); words with other
  letters (Vietnamese syllables, accented Latin) are kept whole, tone marks included, since in
  Vietnamese they tell words apart.

A path is one term, not the words of its folders and extension: ``src/app/login.tsx`` shares
``src`` and ``tsx`` with every other file there. A word naming a file (``src/retry.py``,
``retry.py``, ``.env``: a known extension, any with a slash before it, two slashes, a leading
``./``, or two names joined by a slash, ``db/migrations``) or a folder (``migrations/``) gives a
path term for the whole path and one for the file's name, and the words of that name
(``retri``); its folders and its extension give none. Paths are read as people write them:
backslashes as slashes, without the line and column after them (``a.py:12:5``, ``a.py#L12``),
and a link to a file of a repository (``.../blob/main/src/a.py``) as that file's path. A path
without an extension may name a folder as well, so it gives the folder's mark too; a word with
letters after a dot that names no path (``go.mod``, ``.gitignore``, ``logger.info``) gives its
words and the path term of that name. A path term is a mark no word holds followed by the
folded path's UTF-8 in hex, one token of the index's tokenizer. A learning's targets give only
path terms (``target_terms``), so they meet a prompt only when it names that file, by its path
or its name, or a file in a folder the target names (a query's paths also give a term for each
folder they are in); a file the field names without an extension (``Makefile``,
``CODEOWNERS``) also gives its word, as prose names such files.

A short list of English function words is dropped. The same function segments the learnings
and the query, so whatever it does, both sides agree. It is written with string methods only:
the agent hook segments every prompt, and ``re`` costs milliseconds to import.
"""

from __future__ import annotations

import unicodedata

TYPE_CHECKING = False  # the agent hook imports this module: typing stays out of its start-up
if TYPE_CHECKING:
    from collections.abc import Iterator

# Unicode blocks of scripts written without spaces between words.
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility Jamo, Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables and Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana (NFKC folds most of them)
    (0x20000, 0x3134F),  # CJK extensions B-G
)

STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its me my no not of on or our so than that the their them then there these they "
    "this those to us was we were what when where which while who why will with would you your "
    "please should must".split()
)

# file extensions a word without a slash is taken to name a file by (``retry.py``, not ``logger.info``)
EXTENSIONS = frozenset(
    "bash bat c cc cfg cjs cpp cs css csv dart env erl ex exs go gradle h hpp hs htm html ini ipynb java js json "
    "jsonl jsx kt kts lock lua m md mjs ml mm php pl proto ps1 py pyi r rb rs rst sass scala scss sh sql svelte "
    "swift tf toml ts tsx txt vue xml yaml yml zig".split()
)
PATH = "\ue000"  # a path term's mark: a private-use character, which no word holds
FOLDER = "\ue001"  # a folder's
_EDGES = "\"'`()[]{}<>,;:!?*"  # around a path in prose: quotes, brackets, punctuation

_stemmer = None


def _unspaced(char: str) -> bool:
    code = ord(char)
    return code >= 0x0E00 and any(low <= code <= high for low, high in _UNSPACED)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_" or (char > "\x7f" and unicodedata.category(char)[0] == "M")


def fold(text: str) -> str:
    """Case-folded, in NFC (case folding can decompose)."""
    return unicodedata.normalize("NFC", text.casefold())


def _stem(word: str) -> str:
    global _stemmer
    if _stemmer is None:
        try:
            import Stemmer

            _stemmer = Stemmer.Stemmer("english")
        except ImportError:  # pragma: no cover - PyStemmer is a dependency; without it words stay whole
            _stemmer = False
    return _stemmer.stemWord(word) if _stemmer else word  # type: ignore[union-attr]


def _runs(text: str) -> Iterator[str]:
    """Maximal runs of word characters."""
    start = -1
    for index, char in enumerate(text):
        if _word_char(char):
            if start < 0:
                start = index
        elif start >= 0:
            yield text[start:index]
            start = -1
    if start >= 0:
        yield text[start:]


def _pieces(run: str) -> Iterator[tuple[bool, str]]:
    """A run cut where it passes between unspaced and spaced scripts: (unspaced?, piece)."""
    start = 0
    kind = _unspaced(run[0])
    for index in range(1, len(run)):
        now = _unspaced(run[index])
        if now != kind:
            yield kind, run[start:index]
            start, kind = index, now
    yield kind, run[start:]


def _bigrams(piece: str) -> Iterator[str]:
    if len(piece) == 1:
        yield piece
        return
    for index in range(len(piece) - 1):
        yield piece[index:index + 2]


def _camel(part: str) -> Iterator[str]:
    """``exponentialBackoff`` as ``exponential`` and ``Backoff``: cut before an ASCII capital
    that follows a lowercase ASCII letter or a digit."""
    start = 0
    for index in range(1, len(part)):
        before, char = part[index - 1], part[index]
        if "A" <= char <= "Z" and ("a" <= before <= "z" or "0" <= before <= "9"):
            yield part[start:index]
            start = index
    yield part[start:]


def _words(piece: str) -> Iterator[str]:
    """Words of a spaced piece: split at underscores and camel case, ASCII ones stemmed."""
    for part in piece.split("_"):
        for word in _camel(part) if part else ():
            word = fold(word)
            if (len(word) < 2 and not word.isdigit()) or word in STOPWORDS:
                continue
            yield _stem(word) if word.isascii() and word.isalnum() else word


def _plain(text: str) -> list[str]:
    found: list[str] = []
    for run in _runs(text):
        for unspaced, piece in _pieces(run):
            found.extend(_bigrams(fold(piece)) if unspaced else _words(piece))
    return found


def _lines(text: str) -> bool:
    """Whether ``text`` is the lines of a link's fragment after its ``#l``: ``12``, ``12-l20``."""
    first, dash, last = text.partition("-")
    last = last[1:] if last.startswith("l") else last
    return first.isascii() and first.isdigit() and (not dash or (last.isascii() and last.isdigit()))


def _without_place(word: str) -> str:
    """``word`` without the line and column a compiler or a link puts after a path
    (``a.py:12``, ``a.py:12:5``, ``a.py#L12``, ``a.py#L12-L20``)."""
    head, mark, tail = word.rpartition("#l")
    if mark and _lines(tail):
        word = head
    for _ in range(2):
        head, colon, tail = word.rpartition(":")
        if colon and head and tail.isascii() and tail.isdigit():
            word = head
    return word


def _in_repository(link: str) -> str:
    """The path a link to a file or folder of a repository names (``.../blob/main/src/a.py``:
    ``src/a.py``, after the branch), or nothing for any other link."""
    link = link.partition("#")[0].partition("?")[0]
    for marker in ("/blob/", "/tree/", "/raw/"):
        found, rest = link.partition(marker)[1:]
        if found:
            return rest.partition("/")[2]
    return ""


def _cleaned(word: str) -> str:
    """A word of text as the path it may be: folded, out of the quotes and punctuation around
    it, backslashes read as slashes, without a line (``:12``, ``#L12``) or a link's host."""
    word = fold(word.lstrip(_EDGES).rstrip(_EDGES + ".")).replace("\\", "/")
    if "://" in word:
        return _in_repository(word)
    return _without_place(word).rstrip(_EDGES + ".")


def _name_like(part: str) -> bool:
    """Whether ``part`` can be the name of a file or folder someone writes in prose: word
    characters and ``-._@+~``, a letter among them, not a function word (``and/or``)."""
    return (any(char.isalpha() for char in part) and part not in STOPWORDS
            and all(_word_char(char) or char in "-._@+~" for char in part))


def _extension(name: str) -> str:
    return name.rsplit(".", 1)[1] if "." in name else ""


def _bare(name: str) -> bool:
    """A name without an extension (``Makefile``, ``migrations``, ``.gitignore``): a file's or
    a folder's, no one can tell."""
    return "." not in name[1:]


def named_path(word: str) -> tuple[str, bool] | None:
    """The path a word of text names, folded, without a leading ``./`` or a line after it, and
    whether it is a folder; None when it names none. A folder ends with a slash
    (``migrations/``); a file has an extension, a known one (``retry.py``, ``.env``) or any after
    a slash (``src/a.vue3``), or two slashes (``a/b/c``), or starts with ``./``, or is two names
    joined by a slash (``db/migrations``). ``and/or``, ``/usr`` and ``logger.info`` are words."""
    word = _cleaned(word)
    relative = word.startswith("./")
    while word.startswith("./"):
        word = word[2:]
    if not any(_word_char(char) for char in word):
        return None
    if word.endswith("/"):
        return word.rstrip("/"), True
    name = word.rsplit("/", 1)[-1]
    extension = _extension(name)
    if extension in EXTENSIONS or word.count("/") >= 2 or relative or ("/" in word and (
            (extension[:1].isalpha() and extension.isalnum()) or all(map(_name_like, word.split("/"))))):
        return word, False
    return None


def path_term(path: str, folder: bool = False) -> str:
    return (FOLDER if folder else PATH) + path.encode("utf-8").hex()


def _path_terms(path: str, folder: bool) -> list[str]:
    """A path's terms: the whole path, and a file's name. A path without an extension may name a
    folder as well (``db/migrations``): it gives the folder's mark too."""
    name = path.rsplit("/", 1)[-1]
    found = [path_term(path, folder)]
    if not folder and _bare(name):
        found.append(path_term(path, folder=True))
    return found + ([path_term(name)] if not folder and name != path else [])


def _named(word: str) -> list[str]:
    """The terms of a word that may name a path. A path gives its path terms and the words of its
    last name without the extension; two names joined by a slash (``read/write``) may be two
    words, so they give their words as well. Any other word gives its words, and one that may be a
    file's name (``go.mod``, ``.gitignore``: letters after a dot) the path term of that name."""
    found = named_path(word)
    if found is None:
        cleaned = _cleaned(word)
        named = [path_term(cleaned)] if _name_like(cleaned) and _extension(cleaned)[:1].isalpha() else []
        return _plain(word) + named
    path, folder = found
    name = path.rsplit("/", 1)[-1]
    stem = name if folder or "." not in name else name.rsplit(".", 1)[0]
    words = _plain(path.rsplit("/", 1)[0]) if path.count("/") == 1 and _bare(name) else []
    return _path_terms(path, folder) + _plain(stem) + words


def terms(text: str) -> list[str]:
    """Every term of ``text``, in order, with repeats (term frequency counts)."""
    found: list[str] = []
    for word in unicodedata.normalize("NFKC", text).split():
        found.extend(_named(word) if "." in word or "/" in word or "\\" in word else _plain(word))
    return found


def target_terms(targets: list[str]) -> list[str]:
    """The terms of a learning's targets (files and folders it is about): path terms, so a
    target meets a prompt naming it, never one sharing a folder or an extension with it. A file
    the field names without an extension (``Makefile``, ``CODEOWNERS``: ``_NAMED_IN_PROSE``) is
    named in prose by that word alone, so its name gives its word too; any other name without an
    extension (``scripts/build``, ``app/Models``, ``docs/API``) is as often a folder named by an
    ordinary word, and gives none."""
    found: list[str] = []
    for target in targets:
        written = unicodedata.normalize("NFKC", target).strip().replace("\\", "/")
        path = fold(written)
        while path.startswith("./"):
            path = path[2:]
        if path.strip("/"):
            folder = path.endswith("/")
            found.extend(_path_terms(path.rstrip("/"), folder))
            name = written.rsplit("/", 1)[-1]
            if not folder and fold(name) in _NAMED_IN_PROSE:
                found.extend(_plain(name))
    return found


# Files without an extension that build tools and forges name, which prose names by that word
# alone ("fix the Makefile"); build words a sentence uses as verbs (``BUILD``) are left out.
_NAMED_IN_PROSE = frozenset({
    "makefile", "gnumakefile", "dockerfile", "containerfile", "jenkinsfile", "vagrantfile", "gemfile", "rakefile",
    "procfile", "brewfile", "podfile", "pipfile", "justfile", "earthfile", "tiltfile", "caddyfile", "snakefile",
    "codeowners", "license", "licence", "readme", "changelog", "contributing", "notice", "authors", "owners",
})


def _folders(path: str) -> list[str]:
    """The folder terms of every folder ``path`` is in (``src/app/login.tsx``: ``src/app``, ``src``)."""
    parts = path.split("/")[:-1]
    return [path_term("/".join(parts[:n]), folder=True) for n in range(len(parts), 0, -1)]


def query_terms(text: str, limit: int = 128) -> list[str]:
    """The distinct terms of a query, in first-seen order, at most ``limit``: ``terms``, and
    for each path it names the folders it is in (a target may name one)."""
    found = terms(text)
    for word in unicodedata.normalize("NFKC", text).split():
        named = named_path(word) if "/" in word or "\\" in word else None
        if named is not None:
            found.extend(_folders(named[0]))
    return list(dict.fromkeys(found))[:limit]
