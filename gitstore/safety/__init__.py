"""Safety: the scanner that screens every text entering the store or reaching an agent, split
by what it finds (``hidden``, ``markup``, ``active``, ``injection``, ``commands``, ``secrets`` with
``values``, ``broken`` for tokens cut by line breaks, ``printed`` for what secret-reading commands
print, ``paths``; ``rendered`` for text as a renderer shows its inline markup; ``files`` for a repository file's content, ``frontmatter`` for the
strings its YAML front matter decodes to; ``spans`` and ``code``
shared; ``lazy`` compiles their patterns on first use; ``scanner`` composes them), and the gate
that refuses quarantined text handed to the store."""

# the public modules (tests/test_public_api.py keeps the list whole)
__all__ = ["active", "broken", "code", "commands", "files", "frontmatter", "gate", "hidden", "injection", "lazy", "markup",
           "paths", "printed", "rendered", "scanner", "secrets", "spans", "values"]
