"""The hidden tests, as pytest tests: one per rule group, marked with its rule id and points."""
