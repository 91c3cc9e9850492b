"""Play a ruleset with friends in the browser (``ruledraft serve``): a local web server
where each person's browser is one seat and bots fill the others.

The server is the authority: the engine plays (:mod:`.tables`), each browser is sent
only its own seat's view (:mod:`.view`), and every move is checked before it is
applied. :mod:`.app` is the web part (Starlette, the ``web`` extra); the rest needs
nothing beyond ruledraft's own dependencies.
"""

#: what ``pip`` installs for this package
EXTRA = "pip install 'ruledraft[web]'"
