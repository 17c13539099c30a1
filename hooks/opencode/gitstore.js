// gitstore capture plugin for OpenCode. gitstore:managed (`gitstore hooks install --harness opencode`
// writes this file into a plugins folder; `gitstore hooks uninstall --harness opencode` removes it).
//
// On session.idle and session.compacted it starts `python -m gitstore.capture.agent_hook opencode` in a detached
// process, writes the event (with its name, session id and folder beside it) to its standard input
// and returns at once: OpenCode never waits for capture, and a failure to start Python is ignored.
import { spawn } from "node:child_process"

const PYTHON = "python3" // gitstore:python
const EVENTS = new Set(["session.idle", "session.compacted"])

export const GitstoreCapture = async ({ directory, worktree }) => {
  return {
    event: async ({ event }) => {
      if (!event || !EVENTS.has(event.type)) return
      try {
        const child = spawn(PYTHON, ["-P", "-m", "gitstore.capture.agent_hook", "opencode"], {
          cwd: directory,
          detached: true,
          stdio: ["pipe", "ignore", "ignore"],
        })
        child.on("error", () => {})
        child.stdin.on("error", () => {})
        const session = event.properties && event.properties.sessionID
        child.stdin.end(JSON.stringify({
          hook_event_name: event.type,
          session_id: typeof session === "string" ? session : null,
          cwd: directory,
          worktree,
          event,
        }))
        child.unref()
      } catch {
        // capture must never disturb the session
      }
    },
  }
}
