"""The ruleset language: from a rule file's text to a compiled ruleset.

    yaml_loader -> inheritance (extends) -> schema_check -> semantic_check -> compiler
    (expression, scoring, quantity, catalogue) -> ruleset.CompiledRuleset

:mod:`ruledraft.language.loading` strings the stages together.
"""
