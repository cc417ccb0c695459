"""The parts of make_assignments.py: sources, self-checks, the bug hunt, templates and cells."""
