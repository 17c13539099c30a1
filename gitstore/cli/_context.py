"""Opening the store for the repository the command runs in."""

from __future__ import annotations

from gitstore.config import Workspace
from gitstore.providers import open_provider
from gitstore.store import Store


def open_store(start: str = ".") -> tuple[Workspace, Store]:
    """The workspace around the current directory and its store."""
    workspace = Workspace.find(start)
    provider = open_provider(
        workspace.config.provider, workspace.root, workspace.state, workspace.config.writer
    )
    return workspace, Store(provider, workspace.scope)
