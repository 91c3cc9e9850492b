"""The version of ruledraft: the one place it is written (``pyproject.toml`` reads it).

A shared contract on the ground floor, so that any layer may name the version
without importing the package's front door (``ruledraft/__init__.py``, which stands
above every layer).
"""

__version__ = "0.1.0"
