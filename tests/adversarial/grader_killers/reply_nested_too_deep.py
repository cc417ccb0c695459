"""Attack: send the grader a reply nested 100,000 levels deep.

The runner that talks to the grader runs inside the student's process and encodes its replies
with json.dumps; this file replaces json.dumps so the next reply is 100,000 "[" in a row. That
is under the size limit for messages, but json.loads raises RecursionError on it in the grader,
which expects only ValueError from a malformed reply. The grader must count this as a crash of
the function (0 points), not crash itself.
"""

import json


def minimax_value(game, state):
    json.dumps = lambda message, *args, **kwargs: "[" * 100_000
    return 0
