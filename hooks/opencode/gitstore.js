// gitstore plugin for OpenCode. gitstore:managed (`gitstore hooks install --harness opencode`
// writes this file into a plugins folder; `gitstore hooks uninstall --harness opencode` removes it).
//
// Capture: on session.idle and session.compacted it starts `python -m gitstore.capture.agent_hook
// opencode` in a detached process, writes the event (with its name, session id and folder beside
// it) to its standard input and returns at once: OpenCode never waits for capture.
//
// Context: on chat.message it asks `python -m gitstore.deliver.hook opencode` for accepted
// learnings relevant to the message (at most 8 s; nothing if it is slower or fails) and adds the
// answer to the message as a synthetic text part. session.compacted also tells the context hook,
// so learnings given before the compaction may be given again. Any failure is ignored: the
// session is never disturbed.
import { spawn } from "node:child_process"

const PYTHON = "python3" // gitstore:python
const CAPTURE_EVENTS = new Set(["session.idle", "session.compacted"])
const CONTEXT_MS = 8000
let partCounter = 0

function detached(module, payload, directory) {
  try {
    const child = spawn(PYTHON, ["-P", "-m", module, "opencode"], {
      cwd: directory,
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    })
    child.on("error", () => {})
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
    child.unref()
  } catch {
    // never disturb the session
  }
}

function ask(payload, directory) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(PYTHON, ["-P", "-m", "gitstore.deliver.hook", "opencode"], {
        cwd: directory,
        stdio: ["pipe", "pipe", "ignore"],
      })
    } catch {
      resolve(null)
      return
    }
    const chunks = []
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL")
      } catch {}
      resolve(null)
    }, CONTEXT_MS)
    child.on("error", () => {
      clearTimeout(timer)
      resolve(null)
    })
    child.stdout.on("data", (chunk) => chunks.push(chunk))
    child.on("close", () => {
      clearTimeout(timer)
      try {
        const answer = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        resolve(typeof answer.additionalContext === "string" ? answer.additionalContext : null)
      } catch {
        resolve(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

function partID() {
  // the shape of OpenCode's own part ids: "prt_", 12 hex digits of time, 14 random characters
  const time = (BigInt(Date.now()) * 4096n + BigInt(partCounter++ % 4096)).toString(16).slice(-12).padStart(12, "0")
  const letters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  let random = ""
  for (let i = 0; i < 14; i++) random += letters[Math.floor(Math.random() * letters.length)]
  return `prt_${time}${random}`
}

export const Gitstore = async ({ directory, worktree }) => {
  return {
    event: async ({ event }) => {
      if (!event || !CAPTURE_EVENTS.has(event.type)) return
      const session = event.properties && event.properties.sessionID
      const payload = {
        hook_event_name: event.type,
        session_id: typeof session === "string" ? session : null,
        cwd: directory,
        worktree,
        event,
      }
      detached("gitstore.capture.agent_hook", payload, directory)
      if (event.type === "session.compacted") detached("gitstore.deliver.hook", payload, directory)
    },
    "chat.message": async (input, output) => {
      try {
        const parts = Array.isArray(output.parts) ? output.parts : []
        const prompt = parts
          .filter((part) => part && part.type === "text" && !part.synthetic && typeof part.text === "string")
          .map((part) => part.text)
          .join("\n")
        const context = await ask(
          { hook_event_name: "chat.message", session_id: input.sessionID, cwd: directory, prompt },
          directory,
        )
        if (!context) return
        const messageID = (output.message && output.message.id) || input.messageID
        parts.push({ id: partID(), sessionID: input.sessionID, messageID, type: "text", text: context, synthetic: true })
      } catch {
        // never disturb the session
      }
    },
  }
}
