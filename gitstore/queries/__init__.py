"""Read operations the CLI renders: each reads through the store and the rules, changes nothing."""
