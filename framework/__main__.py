"""``python -m ruledraft``: the same as the ``ruledraft`` command."""

from ruledraft.cli.launch import program

program()
