"""Words that tell what a text does: object, report a fix, agree, decide, constrain, describe a
procedure, or depend on one machine, person, credential or agent harness.

One home for these lists, used by the lexical labeler (polarity, category), the recurrence
consolidator (memory type), tidy (conflicting learnings) and the audience classifier. Patterns
are matched against lowercased text with quotes and code blocks masked.
"""

from __future__ import annotations

import re

_OBJECTS = re.compile(
    r"\b(?:i\s+disagree|disagree|not\s+convinced|push\s+back|overkill|unnecessary|"
    r"(?:isn't|aren't|not)\s+(?:really\s+)?(?:needed|necessary|required)|no\s+need\s+(?:to|for)|"
    r"(?:don't|do\s+not|doesn't|does\s+not)\s+(?:really\s+)?need|"
    r"(?:i'd|i\s+would)\s+rather\s+not|let's\s+not|we\s+(?:don't|do\s+not)\s+want|"
    r"(?:don't|do\s+not)\s+think\s+(?:we|this|that|it)\s+(?:need|should|is)|"
    r"(?:that's|this\s+is|it's)\s+not\s+(?:true|right|correct|the\s+case)|"
    r"i\s+object|objection|(?:that's|this\s+is|it's)\s+(?:wrong|a\s+bad\s+idea)|bad\s+idea|"
    r"please\s+(?:no|don't|do\s+not)\b|(?:shouldn't|should\s+not)\s+do\s+(?:that|this))"
    # a reply that opens with a veto: "-1, ...", "No. ...", "Nope!"; the blanks before it are
    # read to the line's end only, so that no line start scans the blank lines after it (the
    # blank lines before the veto: ``_veto_start``)
    r"|(?P<veto>(?:\A\s*+|(?<=[\n>])[^\S\n]*+)(?:-1|no|nope|nah)\b(?=\s*[.,!:;]|\s*$))"
)
_FIXED = re.compile(
    r"\b(?:fixed\s+in|fixed\s+(?:it|this|that|now)|good\s+catch|pushed\s+a\s+fix|"
    r"(?:done|addressed|resolved)\s*(?:[.!]|$|\s+in\b)|i've\s+(?:added|fixed|changed|updated|switched|moved)|"
    r"(?:now|it)\s+(?:uses|has|does)\b|updated\s+to\b)"
)
# a reply that takes up what it answers: opens agreeing ("Agreed, ...", "+1", "Makes sense"), or
# says the work is under way ("will do", "doing it now")
_AGREES = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|yes|yep|sure|thanks|thank\s+you)[\s,!.:;-]+)*"
    r"(?:agreed|i\s+agree|\+1|will\s+do|on\s+it|makes\s+sense|sounds\s+good|good\s+(?:point|idea|call)|"
    r"you're\s+right|fair\s+(?:point|enough))\b"
    r"|\bdoing\s+(?:it|this|that)\s+now\b"
)
_DECISION = re.compile(
    r"\b(?:we\s+(?:have\s+|'ve\s+)?decided|decided\s+to|we\s+chose|going\s+forward|from\s+now\s+on|"
    r"we\s+agreed|the\s+decision)\b"
)
_PROBLEM = re.compile(
    r"\b(?:caused|causes|root\s+cause|bug|flaky|flakes?|regression|broke|breaks|crash(?:es|ed)?|"
    r"fails|failing|failure|race|deadlock|leaks?|outage|because\s+of)\b"
)
_CONSTRAINT = re.compile(
    r"\b(?:must|mustn't|never|always|required|cannot|can't|do\s+not|don't|forbidden|not\s+allowed|"
    r"only\s+ever)\b"
)
_KNOWLEDGE = re.compile(
    r"\b(?:lives\s+in|is\s+located|is\s+generated|is\s+defined\s+in|comes\s+from|is\s+owned\s+by|"
    r"is\s+built\s+by|is\s+stored\s+in|is\s+configured\s+in|runs\s+on)\b"
)
_PROCEDURE = re.compile(
    r"\b(?:run|rerun|before\s+(?:committing|merging|pushing|releasing|tagging)|steps?|then\s+run|"
    r"workflow|to\s+release|invoke)\b"
)
# Who a text may speak to as AI readers: agents and assistants, bots, models, automated tools
# and the named products; then the ways a text addresses them rather than mentions them.
_PRODUCTS = r"copilot|claude|codex|gemini|cursor|chatgpt"
_READERS = rf"ai|llms?|agents?|assistants?|bots?|models?|automated\s+tools?|{_PRODUCTS}"
# an imperative right after a vocative: an order, not a remark about the named one
_ORDERS = (r"always|never|please|do|don't|ignore|disregard|forget|skip|run|delete|remove|add|commit|push|"
           r"upload|send|post|paste|copy|print|reveal|merge|approve|bypass|disable|use|set|make|write|"
           r"include|install|execute|fetch|follow|output|edit|modify|change|update|rename|move|keep|leave|stop|avoid")
_VOCATIVES = rf"{_PRODUCTS}|ai|llms?|agents?|assistants?|bots?"
_TO_AGENTS = re.compile(
    rf"\b(?:note\s+to\s+(?:the\s+|any\s+|all\s+)?(?:{_READERS})|(?:ai|llm|coding)\s+(?:agents?|assistants?|models?)|"
    r"agents?\s+(?:reading|working\s+on|that\s+reads?)|as\s+an\s+ai|"
    rf"(?:dear|attention)\s+(?:{_READERS}))\b"
    # a group of them, at the start of a sentence or as "any/all/every ...", that acts on the code,
    # then, in the same sentence (a dot in "log.py" ends none), a must or a should: "Automated
    # tools modifying log.py must ...", "Any bot that edits ..."
    # (the blanks after a line's start read to its end only: blank lines are starts of their own)
    r"|(?:\A\s*+|(?<=[.!?;:])\s*+|(?<=\n)[^\S\n]*+|\b(?:any|all|every|each)\b\s*+)"
    r"(?:automated\s+(?:tools?|agents?|systems?)|(?:ai|llm)\s+(?:tools?|systems?)|language\s+models?|"
    r"bots?|assistants?|ais|llms?)"
    r"\s+(?:(?:that|which|who)\s+)?(?:edit|modif|chang|touch|work|read|review|updat|fix|refactor|generat|writ)\w*"
    r"\b(?:[^.!?\n]|[.!?](?=\S)){0,80}?\b(?:must|should|shall|needs?\s+to|ha(?:s|ve)\s+to|(?:is|are)\s+(?:to|required\s+to)|"
    r"always|never)\b"
    # a vocative at the start of a sentence followed by an order: "Claude, always ...", "@copilot please ..."
    # (a comma or a colon after the name, or an @-mention: "Bots use the app token" is a remark)
    rf"|(?:\A\s*+|(?<=[.!?;])\s*+|(?<=\n)[^\S\n]*+)(?:(?:hey|hi|ok|okay|dear)\s+)?"
    rf"(?:@(?:{_VOCATIVES})\s*+[,:]?+|(?:{_VOCATIVES})\s*+[,:])\s*+(?:{_ORDERS})\b",
    re.M,
)
# a clause that forbids: it opens (after "please", "nit:" and the like) with a prohibition, "never
# ...", "do not ...", "we must not ..."; the clauses of a text end at . ! ? ; : , and line breaks
# ("Don't retry immediately, use backoff with jitter" forbids one thing and asks for another)
_CLAUSE = re.compile(r"[^.!?;:\n,]+")
_FORBIDS = re.compile(
    r"\s*(?:(?:please|nit|so|and|but|also|again|fwiw|imo|btw|i\s+think)[\s,-]+)*"
    r"(?:never|(?:don't|dont|do\s+not)(?:\s+ever)?|"
    # a subject of up to three words and a modal, maybe an adverb, then "not" or "never": "we
    # really should not", "jitter should never be added", "I would never ..."
    r"(?:[\w'-]+\s+){1,3}?(?:must|should|shall|would|will|can|may)(?:\s+(?:really|truly|definitely|absolutely|ever))?"
    r"\s+(?:not|never)|(?:[\w'-]+\s+){1,3}?(?:mustn't|shouldn't|won't|can't|wouldn't))\b"
)
# ... unless the prohibition still asks for what it names: "don't forget to add jitter", "do not
# hesitate to ask", "don't remove the backoff", "never retry without a backoff"
_STILL_ASKS = re.compile(
    r"\s*(?:forget|hesitate|worry|miss|skip|omit|neglect|fail|ignore|remove|drop|delete|disable|lose|"
    r"just|only|simply|merely)\b"
)
_DOUBLE_NEGATIVE = re.compile(r"\b(?:without|unless|until|except|with\s+no)\b")
_NEGATION = re.compile(r"\b(?:never|don't|do\s+not|avoid|no\s+longer|stop\s+using|not)\b")

# a dotfile's leading dot: no word boundary stands before it (``\b.`` needs a letter in front, so
# ``the .env file`` would go unseen), and a name that only ends like one (``build.env``) is not one
_DOTFILE = r"(?<![\w.])\."

ENVIRONMENT: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    # (what it shows, the audience it forces, pattern)
    ("a home path", "personal", re.compile(r"(?:^|[\s(\"'=])~/|/(?:home|users)/\w|%userprofile%|c:\\\\?users")),
    ("one machine", "personal", re.compile(
        r"\b(?:on\s+my\s+(?:laptop|machine|mac|box|workstation|desktop|computer)|my\s+(?:laptop|machine|"
        r"workstation)|this\s+machine|[a-z0-9-]+\.local\b|hostname)\b")),
    ("one person's tools", "personal", re.compile(
        r"\b(?:my\s+(?:editor|ide|vim|emacs|shell|alias(?:es)?|dotfiles|setup|config|prompt|keybindings?))\b"
        rf"|{_DOTFILE}(?:zshrc|bashrc|vimrc|profile)\b")),
    ("a credential", "user-tooling", re.compile(
        r"\[redacted:|\b(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth[\s_-]?tokens?|personal\s+access\s+tokens?|"
        r"passwords?|credentials?|secret\s+keys?|ssh\s+keys?|aws_[a-z_]+)\b"
        rf"|{_DOTFILE}(?:env\s+file|netrc)\b")),
    ("an agent harness", "user-tooling", re.compile(
        r"\b(?:claude\s+code|claude\.md|codex\s+(?:cli|sandbox|config)|~/\.codex|~/\.claude|gemini\s+cli|"
        r"opencode|cursor\s+(?:rules|ide)|copilot|mcp\s+server|slash\s+commands?|the\s+agent's\s+hooks?|"
        r"harness)\b")),
    ("local tooling", "user-tooling", re.compile(
        r"\b(?:brew\s+install|homebrew|pyenv|nvm\s+use|asdf|/usr/local/|/opt/homebrew|apt-get\s+install|"
        r"export\s+path|path=)\b")),
)


def objects(text: str) -> re.Match[str] | None:
    return _OBJECTS.search(text)


def _veto_start(text: str, found: re.Match[str]) -> int:
    """Where a veto's match starts counting the blank lines before it, as it always did: at the
    first line start (or quote mark) of the blanks it follows."""
    start = found.start()
    if found.group("veto") is None:
        return start
    blank = start
    while blank > 0 and text[blank - 1].isspace():
        blank -= 1
    for at in range(blank, start):
        if at == 0 or text[at - 1] in "\n>":
            return at
    return start


def reports_fixed(text: str) -> re.Match[str] | None:
    return _FIXED.search(text)


def agrees(text: str) -> re.Match[str] | None:
    """Does the text agree with what it answers, or take the work on?"""
    return _AGREES.search(text)


def polarity(text: str) -> tuple[str, tuple[int, int] | None]:
    """``objects-to``, ``reports-fixed`` or ``asks-for``, and the span of the cue that said so."""
    for name, finder in (("objects-to", _OBJECTS), ("reports-fixed", _FIXED)):
        found = finder.search(text)
        if found:
            return name, (_veto_start(text, found) if finder is _OBJECTS else found.start(), found.end())
    return "asks-for", None


def category(text: str, polarity_: str) -> str:
    """decision, resolved-problem, constraint, project-knowledge or convention."""
    if _DECISION.search(text):
        return "decision"
    if polarity_ == "reports-fixed" or _PROBLEM.search(text):
        return "resolved-problem"
    if _CONSTRAINT.search(text):
        return "constraint"
    if _KNOWLEDGE.search(text):
        return "project-knowledge"
    return "convention"


def procedural(text: str) -> bool:
    """Does the text describe steps to follow rather than a fact or rule?"""
    return bool(_PROCEDURE.search(text))


def negated(text: str) -> bool:
    """Does the text forbid or deny (``never``, ``don't``, ``avoid``)?"""
    return bool(_NEGATION.search(text))


def stance(text: str, spans: tuple[tuple[int, int], ...] = ()) -> str:
    """Whether TEXT ``forbids`` what it is about, ``asks`` for it, or does ``both``, by where
    SPANS (a theme's words in it; its words when none are given) stand: it forbids when at
    least twice as many stand in clauses that forbid (``never ...``, ``do not ...``) as in the
    others ("Never close the connection in a finally block: the pool owns it"), and asks when
    none do. A text that forbids one thing and asks for another ("Never format values into SQL;
    pass bound parameters", "Please add jitter; do not let every client retry at once") does
    both. A negation that still asks for what it names ("don't forget to ...", "never retry
    without a backoff", "do not hesitate to ...") forbids nothing. A prohibition whose object
    comes after a comma ("Do not, under any circumstances, add jitter") forbids that object: a
    clause holding only the prohibition, or none of the theme's words, carries it to the next."""
    against = other = 0
    carried = False  # a prohibition still waiting for what it forbids
    for clause in _CLAUSE.finditer(text):
        start, end = clause.span()
        words = clause.group(0)
        weight = sum(1 for a, _ in spans if start <= a < end) if spans else len(words.split())
        head = _FORBIDS.match(words)
        if carried:
            forbids = not _STILL_ASKS.match(words) and not _DOUBLE_NEGATIVE.search(words)
        else:
            forbids = _forbidding(words)
        if forbids:
            against += weight
        else:
            other += weight
        # carried over a comma only, from a prohibition standing alone ("Do not,") or through an
        # aside holding none of the theme's words ("under any circumstances,"): never from a
        # clause forbidding something of its own ("Don't sleep a fixed second, use backoff")
        by_comma = text[end:end + 1] == ","
        only_head = head is not None and not words[head.end():].strip()
        carried = by_comma and forbids and (only_head or (carried and weight == 0))
    return "asks" if not against else "forbids" if against >= 2 * other else "both"


def _forbidding(clause: str) -> bool:
    found = _FORBIDS.match(clause)
    return found is not None and not _STILL_ASKS.match(clause, found.end()) \
        and not _DOUBLE_NEGATIVE.search(clause, found.end())


def to_agents(text: str) -> bool:
    """Does the text speak to AI agents instead of about the code, as an injected instruction
    made to look like a review comment does?"""
    return bool(_TO_AGENTS.search(text))


def environment(text: str) -> list[tuple[str, str]]:
    """What in the text depends on one machine, person, credential or harness, and the
    audience each forces."""
    return [(what, audience) for what, audience, pattern in ENVIRONMENT if pattern.search(text)]
