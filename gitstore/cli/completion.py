"""``gitstore completion``: the shell completion script for bash, zsh or fish.

Each script asks ``gitstore __complete`` for candidates, so completion follows the commands this
gitstore has, options and option values included, and loads only what one command needs.
"""

from __future__ import annotations

import typer

from gitstore.cli._complete import words
from gitstore.cli._io import echo
from gitstore.errors import UsageError

BASH = r"""# gitstore completion for bash: add `eval "$(gitstore completion bash)"` to ~/.bashrc
_gitstore_complete() {
    local IFS=$'\n'
    COMPREPLY=($(gitstore __complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2>/dev/null))
}
complete -o default -o bashdefault -F _gitstore_complete gitstore
"""

ZSH = r"""#compdef gitstore
# gitstore completion for zsh: add `eval "$(gitstore completion zsh)"` to ~/.zshrc
# compdef comes with zsh's completion system: loaded here when ~/.zshrc has not run compinit
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit -i; }
_gitstore() {
    local -a found
    found=("${(@f)$(gitstore __complete $((CURRENT - 1)) "${words[@]}" 2>/dev/null)}")
    if (( ${#found[@]} )) && [[ -n "${found[1]}" ]]; then
        compadd -a found
    else
        _files
    fi
}
compdef _gitstore gitstore
"""

FISH = r"""# gitstore completion for fish: gitstore completion fish > ~/.config/fish/completions/gitstore.fish
function __gitstore_complete
    set -l words (commandline -opc)
    set -l found (gitstore __complete (count $words) $words (commandline -ct) 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c gitstore -f -a '(__gitstore_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def completion(
    shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish.", autocompletion=words(SCRIPTS)),
) -> None:
    """Print the shell completion script for bash, zsh or fish."""
    script = SCRIPTS.get(shell)
    if script is None:
        raise UsageError(f"no completion for {shell!r} (one of {', '.join(SCRIPTS)})")
    echo(script.rstrip("\n"))


def register(app: typer.Typer) -> None:
    app.command()(completion)
