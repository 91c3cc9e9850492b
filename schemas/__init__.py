"""JSON Schemas for rule files and game logs; see ruledraft.language.bundled.schema_path."""
