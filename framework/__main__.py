"""``python -m ruledraft``: the same as the ``ruledraft`` command."""

from ruledraft.cli.app import main

main()
