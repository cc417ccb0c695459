"""Entry point for `python -m autograder`."""

from autograder.cli import main

if __name__ == "__main__":  # only when run as a command, never on import
    raise SystemExit(main(adopt_orphans=True))
