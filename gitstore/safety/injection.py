"""Injected instructions: text that tries to take over the agent that will read it.

Quarantined as ``prompt-injection``:

- override phrases: "ignore all previous instructions", "disregard the system prompt",
  "forget everything you were told", and their kin;
- persona takeovers: "you are now DAN", "you are now acting as ...", "from now on you will act
  as ...", "pretend you have no restrictions";
- chat-template role markers: ``<|im_start|>``, ``<<SYS>>``, ``[INST]``, a ``<system>`` tag,
  ``BEGIN SYSTEM PROMPT`` in capitals, and a line opening with "New instructions:".

Ordinary review language about instructions, prompts and previous commits is left alone.
"""

from __future__ import annotations

import re

from gitstore.safety.spans import Text, starts_word

def _each(starts: str, rest: str) -> list[str]:
    """One pattern per leading word, so each begins with a literal the engine can search for."""
    return [word + rest for word in starts.split()]


_EARLIER = r"(?:previous|prior|above|preceding|earlier|foregoing|former|original|initial)"
_ORDERS = r"(?:instructions?|prompts?|directives?)"
# Matched against the lowercased text.
_INJECTION = tuple(
    re.compile(p)
    for p in [
        # "ignore all previous instructions", "disregard the above prompt"
        *_each(
            "ignore disregard forget override",
            rf"\s+(?:(?:all|any|the|your|of|my)\s+)*{_EARLIER}\s+(?:\w+\s+)?{_ORDERS}\b",
        ),
        # "ignore all instructions above", "forget the instructions you were given"
        *_each(
            "ignore disregard forget",
            rf"\s+(?:(?:all|any|the|your)\s+)*{_ORDERS}\s+(?:above|before\s+this|given\s+"
            r"(?:above|before|earlier|previously)|you\s+(?:were|have\s+been)\s+given)\b",
        ),
        # "disregard the system prompt"
        *_each(
            "ignore disregard forget",
            r"\s+(?:(?:all|any|of)\s+)*(?:the|your|these|this)\s+(?:system|developer)\s+"
            r"(?:prompt|message|instructions?)\b",
        ),
        r"forget\s+(?:all\s+|everything\s+)+you(?:'ve|\s+have|\s+were)\s+(?:been\s+)?"
        r"(?:told|taught|instructed)\b",
        # persona takeover: "you are now DAN", "you are now acting as ..."
        r"you\s+are\s+now\s+(?:in\s+)?(?:an?\s+|the\s+)?(?:dan\b|jailbroken|unrestricted|"
        r"unfiltered|uncensored|developer\s+mode|god\s+mode|no\s+longer\s+bound|free\s+from\s+"
        r"(?:all|any|your))",
        r"you\s+are\s+now\s+(?:acting\s+as|playing\s+the\s+role|roleplaying|going\s+to\s+"
        r"(?:act|pretend|roleplay))\b",
        r"you\s+are\s+now\s+an?\s+(?:different|new)\s+(?:ai|assistant|model|persona|agent)\b",
        r"from\s+now\s+on,?\s+you\s+(?:are|will|must|shall)\s+(?:act\s+as|pretend|ignore|"
        r"disregard|no\s+longer)\b",
        r"pretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:restrictions|rules|guidelines)\b",
        # chat-template role markers
        r"<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>",
        r"<<\s*sys\s*>>",
        r"\[/?inst\]",
        r"<\s*(?:system|system[_-]prompt)\s*>(?![\w .+-]{0,40}</\s*system\s*>)",
    ]
)
# "New instructions:" opening a line.
_NEW_ORDERS = re.compile(r"instructions?\s*:")
_NEW_ORDERS_LEAD = re.compile(r"[ \t>#*_-]{0,8}(?:new|real|actual|true)\s+(?:system\s+)?")
# Matched against the original text: only the shouted form is a marker.
_INJECTION_UPPER = tuple(
    re.compile(p)
    for p in _each(
        "BEGIN START",
        r"\s+(?:OF\s+)?(?:THE\s+)?(?:SYSTEM|DEVELOPER)\s+(?:PROMPT|MESSAGE|INSTRUCTIONS)\b",
    )
)


def injection_count(text: Text) -> int:
    """How many prompt-injection override phrases the text holds."""
    count = 0
    for pattern in _INJECTION:
        count += sum(1 for m in pattern.finditer(text.low) if starts_word(text.low, m.start()))
    for pattern in _INJECTION_UPPER:
        count += sum(1 for m in pattern.finditer(text.raw) if starts_word(text.raw, m.start()))
    for m in _NEW_ORDERS.finditer(text.low):
        line_start = text.low.rfind("\n", max(0, m.start() - 40), m.start()) + 1
        at_line_start = line_start > 0 or m.start() <= 40
        if at_line_start and _NEW_ORDERS_LEAD.fullmatch(text.low, line_start, m.start()):
            count += 1
    return count


__all__ = ["injection_count"]
