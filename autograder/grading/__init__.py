"""Grading one submission: load -> run in the sandbox -> judge -> record; a class in workers."""
