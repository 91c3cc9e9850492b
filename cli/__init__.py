"""The ``ruledraft`` command line."""
