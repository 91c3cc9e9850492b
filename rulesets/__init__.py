"""Bundled rulesets (YAML files); see ruledraft.bundled."""
