"""Bundled rulesets (YAML files); see ruledraft.language.bundled."""
