"""Playing compiled rulesets: bots, the simulation runner, game logs and replay."""
