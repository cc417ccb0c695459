"""Entry point for `python -m autograder`."""

from autograder.cli import main

raise SystemExit(main(adopt_orphans=True))
