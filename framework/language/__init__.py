"""The ruleset language: from a rule file's text to a compiled ruleset.

    yaml_loader -> inheritance (extends) -> schema_check -> build (one walk)
    (kinds, expression, quantity, catalogue) -> ruleset.CompiledRuleset

:mod:`ruledraft.language.loading` strings the stages together.
"""
