"""`python -m harness`: the same CLI as the `harness` command, for a checkout the virtual
environment was not installed from (a worktree, a clean clone)."""

from .cli import main

main()
