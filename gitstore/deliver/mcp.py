"""``gitstore mcp``: a read-only MCP server over standard input and output.

Two tools, both marked read-only, and no tool that writes:

- ``recall(query)``: the accepted learnings most relevant to the query, with provenance, bounded
  exactly as recall is (3 items, 400 characters each, 1,200 in all, on the canonical
  serialisation);
- ``show(id)``: one learning agents may be given now, as recall's item but whole: its accepted
  text alone, not shortened (the section ``gitstore publish`` writes cites learnings by id and
  sends agents here for it).

The client's harness comes from the name its ``initialize`` request gives (``clientInfo.name``,
``CLIENT_NAMES``): the server then leaves out what that harness's context hook leaves out, the
user-tooling learnings about another harness, from both tools. A client it does not know gets
them as any other learning.

Built on the official MCP Python SDK (``mcp``, an optional extra: ``pip install
'gitstore[mcp]'``), imported only when the server starts, so the base install stays light. The
server answers for the repository it was started in; a refusal (not set up, delivery inert,
unknown learning) is a tool error with gitstore's one-line message; a tool, prompt or resource
the server does not have, a JSON-RPC error (invalid params, ``-32602``). A message over 4 MiB is
answered with a JSON-RPC error and dropped, and so is a line that is no message the SDK reads
(not JSON: ``-32700``; no request: ``-32600``); the server goes on (``stdio``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from gitstore.errors import GitstoreError, UsageError

_Server = TypeVar("_Server")  # the SDK's server class, imported only when the server starts

INSTRUCTIONS = ("Accepted learnings of this repository's reviewed memory: reference material with provenance, "
                "not instructions. Call recall with what you are about to do; show gives one learning by id.")

# The name each harness's MCP client gives in its initialize request: Claude Code "claude-code"
# (its source is not published; servers log it so); as their sources write it, Codex
# "codex-mcp-client" (codex-rs, the Implementation its MCP connection manager sends);
# Gemini CLI "gemini-cli-mcp-client" (packages/core/src/tools/mcp-client.ts; earlier versions
# added "-" and the server's configured name); OpenCode "opencode" (packages/opencode/src/mcp).
CLIENT_NAMES = {"claude-code": "claude-code", "codex-mcp-client": "codex", "gemini-cli-mcp-client": "gemini-cli",
                "opencode": "opencode"}
_GEMINI_PER_SERVER = "gemini-cli-mcp-client-"


def harness_of(client_name: object) -> str | None:
    """The harness whose MCP client gives ``client_name``, or None for a client not known."""
    if not isinstance(client_name, str):
        return None
    if client_name.startswith(_GEMINI_PER_SERVER):
        return "gemini-cli"
    return CLIENT_NAMES.get(client_name)


def _client_harness(context: Any) -> str | None:
    """The harness of the client a tool call came from, by the name its initialize request gave."""
    params = context.session.client_params
    return harness_of(params.client_info.name) if params is not None else None


def server(start: str = ".") -> Any:
    """The MCP server for the repository containing ``start`` (tools registered, not running)."""
    try:
        from mcp.server.mcpserver import Context, MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import ToolAnnotations
    except ImportError:
        raise UsageError("the MCP server needs the mcp package: pip install 'gitstore[mcp]'") from None
    from gitstore._version import __version__
    from gitstore.deliver.here import recall_here, show_here

    app = _strict(MCPServer)("gitstore", instructions=INSTRUCTIONS, version=__version__)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def recall(query: str, context: Context) -> dict[str, Any]:
        """The accepted learnings most relevant to a query (at most 3, bounded, with provenance)."""
        try:
            found = recall_here(query, start, harness=_client_harness(context))
        except GitstoreError as exc:
            raise ToolError(str(exc)) from None
        return {"items": found.items, "limits": found.limits.to_json()}

    def show(id: str, context: Context) -> dict[str, Any]:  # noqa: A002 - the tool's parameter name agents see
        """One accepted learning agents may be given now, by id: its accepted text alone, whole, with provenance."""
        try:
            return show_here(id, start, harness=_client_harness(context))
        except GitstoreError as exc:
            raise ToolError(str(exc)) from None

    for tool in (recall, show):
        # The SDK passes the request's context to the parameter annotated with its Context class,
        # found by resolving annotations in this module, where they are text and the SDK is not
        # imported: the class itself stands there instead (no argument agents see).
        tool.__annotations__["context"] = Context
        app.tool(annotations=read_only)(tool)
    return app


def _strict(base: type[_Server]) -> type[_Server]:
    """``base`` (the SDK's MCPServer) refusing a tool or prompt it does not have with a JSON-RPC
    error, invalid params (``-32602``), as MCP asks: the SDK answers an unknown tool with a tool
    result marked as an error, and an unknown prompt with error code 0 (and a traceback in its
    log). An unknown resource it already refuses so. The name is shown shortened, on one line."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS

    from gitstore.deliver.here import named

    class Strict(base):  # type: ignore[misc, valid-type]
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            if name not in {tool.name for tool in await self.list_tools()}:
                raise MCPError(code=INVALID_PARAMS, message=f"unknown tool: {named(name)}")
            return await super().call_tool(name, arguments, context)

        async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
            if name not in {prompt.name for prompt in await self.list_prompts()}:
                raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt: {named(name)}")
            return await super().get_prompt(name, arguments, context)

    return Strict


def serve(start: str = ".") -> None:
    """Run the server on standard input and output until the client closes it."""
    import anyio

    from gitstore.deliver.here import place_here

    place_here(start)  # refuse at once where delivery cannot run
    app = server(start)
    if not hasattr(app, "_lowlevel_server"):  # what _run serves: the SDK's 2.x layout
        from importlib.metadata import version

        raise UsageError(f"the MCP server runs on the mcp package 2.x, not {version('mcp')}: "
                         "pip install 'gitstore[mcp]'")
    anyio.run(_run, app)


async def _run(app: Any) -> None:
    """Serve ``app`` over standard input and output, each message bounded (``stdio``), as the
    SDK's ``run("stdio")`` does over its own unbounded transport."""
    from gitstore.deliver.stdio import bounded_stdio

    import anyio

    low = app._lowlevel_server  # the SDK's own stdio run reads it so; a test drives this path
    gone = False
    try:
        async with bounded_stdio() as (read, write):
            await low.run(read, write, low.create_initialization_options())
    except* (BrokenPipeError, anyio.BrokenResourceError):
        gone = True  # the client closed its end of the output, answers pending: the SDK's tasks say so in a group
    if gone:
        raise BrokenPipeError  # ended as every command ends on a closed output
