"""Operations that change memory: each validates against the rules, then writes its records and
the audit entries that record it in one atomic append. The CLI calls these and renders."""
