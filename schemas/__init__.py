"""JSON Schemas for rule files and game logs; see ruledraft.bundled.schema_path."""
