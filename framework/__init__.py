"""ruledraft: rules-as-data for card-drafting games."""

__version__ = "0.1.0"
