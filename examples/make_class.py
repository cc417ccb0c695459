"""Write the example class: synthetic student notebooks that the autograder grades in its demo.

Run `python examples/make_class.py` to regenerate `examples/class/*.ipynb` and
`examples/README.md`; the output is deterministic, so a second run changes no byte.

Each student is built from the correct building blocks below plus that student's overrides, so
every mutant differs from a correct submission exactly where its mistake is. `EXPECTED` says in
one sentence what each student did, `SHOULD_LOSE` which grading rules the mistake breaks.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.grading.beyond import FUNCTIONS as CHANCE_FUNCTIONS
from autograder.grading.mistakes import MISTAKES
from autograder.grading.rules import ALL_RULE_IDS, FUNCTIONS, RULE_IDS
from autograder.platforms.nbgrader_export import module_source
from solutions import agent, alphabeta, chance, depth_limited, minimax, multiplayer

HERE = Path(__file__).resolve().parent
CLASS_DIR = HERE / "class"
README = HERE / "README.md"

RULES = RULE_IDS
_ALPHABETA = ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning")
_DEPTH_LIMITED = ("depth_limited_value", "depth_limited_decision")

# --------------------------------------------------------------------------------------------
# What each student did, and which rules that should cost them. A student who makes a
# circulating mistake is that mistake's entry in the catalogue (autograder/grading/mistakes.py); the
# others are correct variants, or hand in a broken, partial or empty notebook.
# --------------------------------------------------------------------------------------------

OTHER_STUDENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "alice_correct": ("Correct; the same algorithms as the reference solution.", ()),
    "bob_last_ties": (
        "Correct; minimax and depth-limited decisions break ties towards the last optimal action,"
        " and alpha-beta is fail-hard.",
        (),
    ),
    "carol_negamax": (
        "Correct; minimax and alpha-beta written as negamax with a colour sign.",
        (),
    ),
    "quentin_partial": (
        "Only minimax is written; the other four functions still raise NotImplementedError.",
        (*_ALPHABETA, *_DEPTH_LIMITED),
    ),
    "rupert_broken_json": (
        "Correct code, but the file was cut off halfway and is not valid JSON.",
        RULES,
    ),
    "sybil_syntax_error": (
        "The alphabeta_value cell has a syntax error; the other cells are correct.",
        _ALPHABETA,
    ),
    "trent_infinite_loop": (
        "alphabeta_value loops forever on every call; the rest is correct.",
        _ALPHABETA,
    ),
    "yves_empty": ("Nothing written: the notebook defines none of the functions.", RULES),
    "wendy_noisy_but_correct": (
        "Correct, in a noisy notebook: magics, shell commands, prints, input(), a plot and a"
        " self-check.",
        (),
    ),
    "xavier_random_moves": (
        "Decisions return a random legal action; values are always 0.",
        RULES,
    ),
    "zack_first_action": (
        "Decisions return the first action; values are the utility if terminal, else 0.",
        RULES,
    ),
}

STUDENTS = (
    "alice_correct", "bob_last_ties", "carol_negamax", "dan_strict_cutoff",
    "erin_max_starts_at_zero", "frank_swapped_window", "grace_min_never_cuts",
    "heidi_root_picks_min", "ivan_returns_child", "judy_no_alternation", "mallory_fresh_window",
    "niaj_eager_children", "olivia_wrong_side_eval", "peggy_last_child", "quentin_partial",
    "rupert_broken_json", "sybil_syntax_error", "trent_infinite_loop", "ursula_unit_sentinels",
    "victor_no_terminal_test", "walter_textbook_depth", "xena_value_or_heuristic",
    "yolanda_beta_min_alpha", "zoe_cutoff_not_passed_up", "yves_empty",
    "wendy_noisy_but_correct", "xavier_random_moves", "zack_first_action",
    "abel_table_bound_as_exact", "bea_later_tie_at_a_bound",
    "cleo_chance_as_max", "dmitri_chance_as_min", "fatima_plain_average",
    "gus_maxn_wrong_component", "hana_maxn_root_view",
)  # fmt: skip
"""The class, in the order of examples/README.md."""

DID_ASSIGNMENT_6 = (
    "alice_correct", "cleo_chance_as_max", "dmitri_chance_as_min", "fatima_plain_average",
    "gus_maxn_wrong_component", "hana_maxn_root_view",
)  # fmt: skip
"""The students who also handed in the optional Assignment 6 (chance nodes and max-n); the
others' notebooks hold the six functions of lectures 1-4 only. The five besides alice are
correct on those six and make one of lecture 06's mistakes."""

MISTAKE_OF = {m.student: m for m in MISTAKES if m.student}

EXPECTED: dict[str, str] = {
    s: MISTAKE_OF[s].summary if s in MISTAKE_OF else OTHER_STUDENTS[s][0] for s in STUDENTS
}
SHOULD_LOSE: dict[str, tuple[str, ...]] = {
    s: MISTAKE_OF[s].loses if s in MISTAKE_OF else OTHER_STUDENTS[s][1] for s in STUDENTS
}
# Rules a student loses on some instances only (named in the README so nobody expects zero).
PARTLY: dict[str, dict[str, str]] = {s: dict(m.partly) for s, m in MISTAKE_OF.items() if m.partly}

# --------------------------------------------------------------------------------------------
# Correct building blocks: what a good student hands in, one cell per function.
# --------------------------------------------------------------------------------------------


def as_a_student_writes(function: Callable) -> str:
    """The reference function's source without its type hints, as a student's cell holds it.

    The good student's code is the reference itself (`solutions`), so it is never retyped here;
    every mutant below differs from it exactly where its mistake is.
    """
    tree = ast.parse(inspect.getsource(function))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
    return ast.unparse(tree) + "\n"


IMPORTS = (
    "import math\n\nfrom games import MAX, MIN\n\n\n"
    + as_a_student_writes(minimax._require_a_move)  # the decisions' check, given in the notebooks
)
IMPORTS_WITH_CHANCE = IMPORTS.replace("import MAX, MIN", "import CHANCE, MAX, MIN")

MINIMAX_VALUE = as_a_student_writes(minimax.minimax_value)
MINIMAX_DECISION = as_a_student_writes(minimax.minimax_decision)
ALPHABETA_VALUE = as_a_student_writes(alphabeta.alphabeta_value)
ALPHABETA_DECISION = as_a_student_writes(alphabeta.alphabeta_decision)
DEPTH_LIMITED_VALUE = as_a_student_writes(depth_limited.depth_limited_value)
DEPTH_LIMITED_DECISION = as_a_student_writes(depth_limited.depth_limited_decision)


def _mutate(source: str, old: str, new: str) -> str:
    """Return `source` with the one occurrence of `old` replaced: a one-line mutant."""
    if source.count(old) != 1:
        raise ValueError(f"expected exactly one {old!r} in the building block")
    return source.replace(old, new)


CORRECT: dict[str, str] = {
    "minimax_value": MINIMAX_VALUE,
    "minimax_decision": MINIMAX_DECISION,
    "alphabeta_value": ALPHABETA_VALUE,
    "alphabeta_decision": ALPHABETA_DECISION,
    "depth_limited_value": DEPTH_LIMITED_VALUE,
    "depth_limited_decision": DEPTH_LIMITED_DECISION,
    "expectiminimax_value": as_a_student_writes(chance.expectiminimax_value),
    "expectiminimax_decision": as_a_student_writes(chance.expectiminimax_decision),
    "maxn_value": as_a_student_writes(multiplayer.maxn_value),
    "maxn_decision": as_a_student_writes(multiplayer.maxn_decision),
}

# --------------------------------------------------------------------------------------------
# Each student's overrides: function name -> the source of its cell (None: not written at all).
# --------------------------------------------------------------------------------------------

BOB = {
    "minimax_decision": '''\
def minimax_decision(game, state):
    """Best action for whoever moves; on a tie I keep the later action."""
    sign = 1 if game.to_move(state) == MAX else -1
    best_action = None
    best_score = -math.inf
    for action in game.actions(state):
        score = sign * minimax_value(game, game.result(state, action))
        if score >= best_score:
            best_score = score
            best_action = action
    return best_action
''',
    "alphabeta_value": '''\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    """Fail-hard alpha-beta: the answer is clamped to the window [alpha, beta]."""
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        for action in game.actions(state):
            score = alphabeta_value(game, game.result(state, action), alpha, beta)
            if score >= beta:
                return beta
            if score > alpha:
                alpha = score
        return alpha
    for action in game.actions(state):
        score = alphabeta_value(game, game.result(state, action), alpha, beta)
        if score <= alpha:
            return alpha
        if score < beta:
            beta = score
    return beta
''',
    "alphabeta_decision": '''\
def alphabeta_decision(game, state):
    """Best action with alpha-beta; the root keeps its window for the later children."""
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        score = alphabeta_value(game, game.result(state, action), alpha, beta)
        # Strictly better only: with the window carried, a later child that comes back
        # exactly at alpha (or beta) may be worse and merely clamped.
        if game.to_move(state) == MAX:
            if best_action is None or score > alpha:
                best_action, alpha = action, score
        elif best_action is None or score < beta:
            best_action, beta = action, score
    return best_action
''',
    "depth_limited_decision": '''\
def depth_limited_decision(game, state, depth, evaluate):
    """Best action looking depth plies ahead; on a tie I keep the later action."""
    sign = 1 if game.to_move(state) == MAX else -1
    best_action = None
    best_score = -math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        score = sign * depth_limited_value(game, child, depth - 1, evaluate)
        if score >= best_score:
            best_score = score
            best_action = action
    return best_action
''',
}

CAROL_NEGAMAX = '''\
def negamax(game, state, colour):
    """Value of state for the player to move: colour is +1 when that is MAX, -1 for MIN."""
    if game.is_terminal(state):
        return colour * game.utility(state)
    return max(-negamax(game, game.result(state, a), -colour) for a in game.actions(state))
'''

CAROL_NEGAMAX_AB = '''\
def negamax_ab(game, state, alpha, beta, colour):
    """Negamax with pruning; alpha and beta are seen from the player to move."""
    if game.is_terminal(state):
        return colour * game.utility(state)
    best = -math.inf
    for action in game.actions(state):
        score = -negamax_ab(game, game.result(state, action), -beta, -alpha, -colour)
        best = max(best, score)
        if best >= beta:
            break
        alpha = max(alpha, best)
    return best
'''

CAROL = {
    "minimax_value": CAROL_NEGAMAX
    + """

def minimax_value(game, state):
    colour = 1 if game.to_move(state) == MAX else -1
    return colour * negamax(game, state, colour)
""",
    "minimax_decision": """\
def minimax_decision(game, state):
    colour = 1 if game.to_move(state) == MAX else -1
    best_action, best = None, -math.inf
    for action in game.actions(state):
        score = -negamax(game, game.result(state, action), -colour)
        if best_action is None or score > best:
            best_action, best = action, score
    return best_action
""",
    "alphabeta_value": CAROL_NEGAMAX_AB
    + """

def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    # negamax_ab answers for the player to move, so turn MIN's answer back into MAX's view
    if game.to_move(state) == MAX:
        return negamax_ab(game, state, alpha, beta, 1)
    return -negamax_ab(game, state, -beta, -alpha, -1)
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    colour = 1 if game.to_move(state) == MAX else -1
    alpha, beta = -math.inf, math.inf
    best_action, best = None, -math.inf
    for action in game.actions(state):
        score = -negamax_ab(game, game.result(state, action), -beta, -alpha, -colour)
        if best_action is None or score > best:
            best_action, best = action, score
            alpha = max(alpha, score)
    return best_action
""",
}

DAN = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, alphabeta_value(game, game.result(state, action), alpha, beta))
            if v > beta:
                return v
            alpha = max(alpha, v)
        return v
    v = math.inf
    for action in game.actions(state):
        v = min(v, alphabeta_value(game, game.result(state, action), alpha, beta))
        if v < alpha:
            return v
        beta = min(beta, v)
    return v
""",
}

ERIN = {
    "minimax_value": """\
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        best = 0
        for action in game.actions(state):
            best = max(best, minimax_value(game, game.result(state, action)))
        return best
    best = math.inf
    for action in game.actions(state):
        best = min(best, minimax_value(game, game.result(state, action)))
    return best
""",
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        best = 0
        for action in game.actions(state):
            best = max(best, alphabeta_value(game, game.result(state, action), alpha, beta))
            if best >= beta:
                return best
            alpha = max(alpha, best)
        return best
    best = math.inf
    for action in game.actions(state):
        best = min(best, alphabeta_value(game, game.result(state, action), alpha, beta))
        if best <= alpha:
            return best
        beta = min(beta, best)
    return best
""",
}

FRANK = {
    "alphabeta_value": _mutate(
        ALPHABETA_VALUE, "alpha=-math.inf, beta=math.inf", "alpha=math.inf, beta=-math.inf"
    ),
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    actions = game.actions(state)
    values = [alphabeta_value(game, game.result(state, action)) for action in actions]
    if game.to_move(state) == MAX:
        best = max(values)
    else:
        best = min(values)
    return actions[values.index(best)]
""",
}

GRACE = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in game.actions(state):
            value = max(value, alphabeta_value(game, game.result(state, action), alpha, beta))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for action in game.actions(state):
        value = min(value, alphabeta_value(game, game.result(state, action), alpha, beta))
    return value
""",
}

HEIDI = {
    "minimax_decision": """\
def minimax_decision(game, state):
    # the children belong to the opponent, so use the opponent's rule on them
    use_max = game.to_move(state) == MIN
    best_action, best_value = None, None
    for action in game.actions(state):
        value = minimax_value(game, game.result(state, action))
        if best_value is None or (value > best_value if use_max else value < best_value):
            best_action, best_value = action, value
    return best_action
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    # the children belong to the opponent, so use the opponent's rule on them
    use_max = game.to_move(state) == MIN
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action), alpha, beta)
        if use_max and (best_action is None or value > alpha):
            best_action, alpha = action, value
        elif not use_max and (best_action is None or value < beta):
            best_action, beta = action, value
    return best_action
""",
}

IVAN = {
    "minimax_decision": """\
def minimax_decision(game, state):
    children = [game.result(state, action) for action in game.actions(state)]
    if game.to_move(state) == MAX:
        return max([(minimax_value(game, child), child) for child in children])[1]
    return min([(minimax_value(game, child), child) for child in children])[1]
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    alpha, beta = -math.inf, math.inf
    best = None
    for action in game.actions(state):
        child = game.result(state, action)
        value = alphabeta_value(game, child, alpha, beta)
        if game.to_move(state) == MAX:
            if best is None or value > alpha:
                best, alpha = child, value
        elif best is None or value < beta:
            best, beta = child, value
    return best
""",
    "depth_limited_decision": """\
def depth_limited_decision(game, state, depth, evaluate):
    children = [game.result(state, action) for action in game.actions(state)]
    scored = [(depth_limited_value(game, child, depth - 1, evaluate), child) for child in children]
    if game.to_move(state) == MAX:
        return max(scored)[1]
    return min(scored)[1]
""",
}

JUDY = {
    "minimax_value": """\
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    return max(minimax_value(game, game.result(state, a)) for a in game.actions(state))
""",
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    value = -math.inf
    for action in game.actions(state):
        value = max(value, alphabeta_value(game, game.result(state, action), alpha, beta))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value
""",
    "depth_limited_value": """\
def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    return max(
        depth_limited_value(game, game.result(state, a), depth - 1, evaluate)
        for a in game.actions(state)
    )
""",
}

MALLORY = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in game.actions(state):
            value = max(value, alphabeta_value(game, game.result(state, action)))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for action in game.actions(state):
        value = min(value, alphabeta_value(game, game.result(state, action)))
        if value <= alpha:
            return value
        beta = min(beta, value)
    return value
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    maximising = game.to_move(state) == MAX
    best_action, best_value = None, None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action))
        if best_value is None or (value > best_value if maximising else value < best_value):
            best_action, best_value = action, value
    return best_action
""",
}

NIAJ = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    children = [game.result(state, a) for a in game.actions(state)]
    if game.to_move(state) == MAX:
        value = -math.inf
        for child in children:
            value = max(value, alphabeta_value(game, child, alpha, beta))
            if value >= beta:
                break
            alpha = max(alpha, value)
    else:
        value = math.inf
        for child in children:
            value = min(value, alphabeta_value(game, child, alpha, beta))
            if value <= alpha:
                break
            beta = min(beta, value)
    return value
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    actions = game.actions(state)
    children = [game.result(state, a) for a in actions]
    maximising = game.to_move(state) == MAX
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action, child in zip(actions, children):
        value = alphabeta_value(game, child, alpha, beta)
        if maximising and (best_action is None or value > alpha):
            best_action, alpha = action, value
        elif not maximising and (best_action is None or value < beta):
            best_action, beta = action, value
    return best_action
""",
}

OLIVIA = {
    "depth_limited_value": """\
def search_to_depth(game, state, depth, evaluate, ply):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        score = evaluate(state)
        if ply % 2 == 1:
            return -score
        return score
    values = [
        search_to_depth(game, game.result(state, action), depth - 1, evaluate, ply + 1)
        for action in game.actions(state)
    ]
    if game.to_move(state) == MAX:
        return max(values)
    return min(values)


def depth_limited_value(game, state, depth, evaluate):
    return search_to_depth(game, state, depth, evaluate, 0)
""",
}

PEGGY = {
    "minimax_decision": """\
def minimax_decision(game, state):
    best_value = -math.inf if game.to_move(state) == MAX else math.inf
    best_action = None
    for action in game.actions(state):
        value = minimax_value(game, game.result(state, action))
        if game.to_move(state) == MAX and value > best_value:
            best_value = value
        elif game.to_move(state) == MIN and value < best_value:
            best_value = value
        best_action = action
    return best_action
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action), alpha, beta)
        if game.to_move(state) == MAX:
            alpha = max(alpha, value)
        else:
            beta = min(beta, value)
        best_action = action
    return best_action
""",
    "depth_limited_decision": """\
def depth_limited_decision(game, state, depth, evaluate):
    best_value = -math.inf if game.to_move(state) == MAX else math.inf
    best_action = None
    for action in game.actions(state):
        value = depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        if game.to_move(state) == MAX and value > best_value:
            best_value = value
        elif game.to_move(state) == MIN and value < best_value:
            best_value = value
        best_action = action
    return best_action
""",
}


def _stub(signature: str, docstring: str) -> str:
    """The cell as the released assignment hands it out, before the student writes anything."""
    docstring_line = f'    """{docstring}"""\n'
    return f"{signature}\n{docstring_line}    # YOUR CODE HERE\n    raise NotImplementedError()\n"


QUENTIN = {
    "alphabeta_value": _stub(
        "def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):",
        "Return the minimax value of state, pruning with the window (alpha, beta).",
    ),
    "alphabeta_decision": _stub(
        "def alphabeta_decision(game, state):",
        "Return an optimal action for the player to move, searching with alpha-beta.",
    ),
    "depth_limited_value": _stub(
        "def depth_limited_value(game, state, depth, evaluate):",
        "Return the value of state searched depth plies ahead.",
    ),
    "depth_limited_decision": _stub(
        "def depth_limited_decision(game, state, depth, evaluate):",
        "Return the best action looking depth plies ahead.",
    ),
}

SYBIL = {
    "alphabeta_value": _mutate(
        ALPHABETA_VALUE,
        "value = min(value, alphabeta_value(game, game.result(state, action), alpha, beta))",
        "value = min(value, alphabeta_value(game, game.result(state, action), alpha, beta)",
    ),
}

TRENT = {
    "alphabeta_value": _mutate(
        ALPHABETA_VALUE,
        "    if game.is_terminal(state):\n        return game.utility(state)\n",
        "    while True:  # TODO: remove once the pruning works\n        pass\n"
        "    if game.is_terminal(state):\n        return game.utility(state)\n",
    ),
}

URSULA = {
    "minimax_value": """\
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        v = -1
        for a in game.actions(state):
            v = max(v, minimax_value(game, game.result(state, a)))
    else:
        v = 1
        for a in game.actions(state):
            v = min(v, minimax_value(game, game.result(state, a)))
    return v
""",
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        v = -1
        for a in game.actions(state):
            v = max(v, alphabeta_value(game, game.result(state, a), alpha, beta))
            if v >= beta:
                return v
            alpha = max(alpha, v)
    else:
        v = 1
        for a in game.actions(state):
            v = min(v, alphabeta_value(game, game.result(state, a), alpha, beta))
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v
""",
}

VICTOR = {
    "depth_limited_value": """\
def depth_limited_value(game, state, depth, evaluate):
    if depth == 0:
        return evaluate(state)
    if game.is_terminal(state):
        return game.utility(state)
    values = []
    for action in game.actions(state):
        values.append(depth_limited_value(game, game.result(state, action), depth - 1, evaluate))
    if game.to_move(state) == MAX:
        return max(values)
    return min(values)
""",
}

WALTER = {
    "depth_limited_value": '''\
def cutoff_search(game, state, depth, limit, evaluate):
    """Minimax from a node at the given depth; cut off once depth > limit (AIMA style)."""
    if game.is_terminal(state):
        return game.utility(state)
    if depth > limit:
        return evaluate(state)
    values = [
        cutoff_search(game, game.result(state, action), depth + 1, limit, evaluate)
        for action in game.actions(state)
    ]
    return max(values) if game.to_move(state) == MAX else min(values)


def depth_limited_value(game, state, depth, evaluate):
    return cutoff_search(game, state, 0, depth, evaluate)
''',
    "depth_limited_decision": """\
def depth_limited_decision(game, state, depth, evaluate):
    maximising = game.to_move(state) == MAX
    best_action, best_value = None, None
    for action in game.actions(state):
        # the root's children are at depth 1
        value = cutoff_search(game, game.result(state, action), 1, depth, evaluate)
        if best_value is None or (value > best_value if maximising else value < best_value):
            best_action, best_value = action, value
    return best_action
""",
}

XENA = {
    "depth_limited_value": """\
def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state) or evaluate(state)
    if depth == 0:
        return evaluate(state)
    values = [
        depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        for action in game.actions(state)
    ]
    return max(values) if game.to_move(state) == MAX else min(values)
""",
}

YOLANDA = {
    "alphabeta_value": _mutate(
        ALPHABETA_VALUE, "beta = min(beta, value)", "beta = min(alpha, value)"
    ),
}

ZOE = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        if game.is_terminal(child):
            # leaves: stop looking at the rest as soon as they cannot matter
            score = game.utility(child)
            if maximising:
                value = max(value, score)
                if value >= beta:
                    return value
                alpha = max(alpha, value)
            else:
                value = min(value, score)
                if value <= alpha:
                    return value
                beta = min(beta, value)
        else:
            score = alphabeta_value(game, child, alpha, beta)
            if maximising:
                value = max(value, score)
                alpha = max(alpha, value)
            else:
                value = min(value, score)
                beta = min(beta, value)
    return value
""",
}

XAVIER = {
    "minimax_value": "def minimax_value(game, state):\n    return 0\n",
    "minimax_decision": (
        "def minimax_decision(game, state):\n    return random.choice(game.actions(state))\n"
    ),
    "alphabeta_value": (
        "def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):\n    return 0\n"
    ),
    "alphabeta_decision": (
        "def alphabeta_decision(game, state):\n    return random.choice(game.actions(state))\n"
    ),
    "depth_limited_value": "def depth_limited_value(game, state, depth, evaluate):\n    return 0\n",
    "depth_limited_decision": (
        "def depth_limited_decision(game, state, depth, evaluate):\n"
        "    return random.choice(game.actions(state))\n"
    ),
}

_ZACK_VALUE = "    if game.is_terminal(state):\n        return game.utility(state)\n    return 0\n"
_ZACK_DECISION = "    return game.actions(state)[0]\n"
ZACK = {
    "minimax_value": "def minimax_value(game, state):\n" + _ZACK_VALUE,
    "minimax_decision": "def minimax_decision(game, state):\n" + _ZACK_DECISION,
    "alphabeta_value": (
        "def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):\n" + _ZACK_VALUE
    ),
    "alphabeta_decision": "def alphabeta_decision(game, state):\n" + _ZACK_DECISION,
    "depth_limited_value": (
        "def depth_limited_value(game, state, depth, evaluate):\n" + _ZACK_VALUE
    ),
    "depth_limited_decision": (
        "def depth_limited_decision(game, state, depth, evaluate):\n" + _ZACK_DECISION
    ),
}

ABEL = {
    "alphabeta_value": """\
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf, table=None):
    # remember every position searched: the same position comes back by other move orders
    table = {} if table is None else table
    if game.is_terminal(state):
        return game.utility(state)
    if state in table:
        return table[state]
    maximising = game.to_move(state) == MAX
    for action in game.actions(state):
        found = alphabeta_value(game, game.result(state, action), alpha, beta, table)
        if maximising:
            if found >= beta:
                table[state] = beta
                return beta
            alpha = max(alpha, found)
        elif found <= alpha:
            table[state] = alpha
            return alpha
        else:
            beta = min(beta, found)
    table[state] = alpha if maximising else beta
    return table[state]
""",
    "alphabeta_decision": """\
def alphabeta_decision(game, state):
    # one table for the whole decision: the root's children share positions too
    maximising = game.to_move(state) == MAX
    alpha, beta, best, table = -math.inf, math.inf, None, {}
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action), alpha, beta, table)
        if maximising and (best is None or value > alpha):
            best, alpha = action, value
        elif not maximising and (best is None or value < beta):
            best, beta = action, value
    return best
""",
}

BEA = {
    "alphabeta_decision": """\
def best_action_carrying_the_window(search, game, state):
    # every child first, then the window carried from one child to the next
    children = [(action, game.result(state, action)) for action in game.actions(state)]
    maximising = game.to_move(state) == MAX
    alpha, beta, best = -math.inf, math.inf, None
    for action, child in children:
        value = search(child, alpha, beta)
        if maximising and value >= alpha:  # a tie keeps the later action
            best, alpha = action, value
        elif not maximising and value <= beta:
            best, beta = action, value
    return best


def alphabeta_decision(game, state):
    search = lambda child, alpha, beta: alphabeta_value(game, child, alpha, beta)  # noqa: E731
    return best_action_carrying_the_window(search, game, state)
""",
    "depth_limited_decision": """\
def limited_alphabeta(game, state, depth, evaluate, alpha, beta):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        found = limited_alphabeta(game, child, depth - 1, evaluate, alpha, beta)
        if maximising:
            value = max(value, found)
            if value >= beta:
                return value
            alpha = max(alpha, value)
        else:
            value = min(value, found)
            if value <= alpha:
                return value
            beta = min(beta, value)
    return value


def depth_limited_decision(game, state, depth, evaluate):
    def search(child, alpha, beta):
        return limited_alphabeta(game, child, depth - 1, evaluate, alpha, beta)

    return best_action_carrying_the_window(search, game, state)
""",
}

YVES = dict.fromkeys(FUNCTIONS)

# Lecture 06's mistakes (Assignment 6): one change each to the reference's functions.
_CHANCE_SUM = (
    "sum((probability * expectiminimax_value(game, game.result(state, outcome)) for outcome, "
    "probability in game.chance_outcomes(state)))"
)
_CHANCE_VALUES = (
    "(expectiminimax_value(game, game.result(state, outcome)) for outcome, probability in "
    "game.chance_outcomes(state))"
)
CLEO = {
    "expectiminimax_value": _mutate(
        CORRECT["expectiminimax_value"], _CHANCE_SUM, f"max({_CHANCE_VALUES})"
    ),
}
DMITRI = {
    "expectiminimax_value": _mutate(
        CORRECT["expectiminimax_value"], _CHANCE_SUM, f"min({_CHANCE_VALUES})"
    ),
}
FATIMA = {
    "expectiminimax_value": _mutate(
        CORRECT["expectiminimax_value"],
        _CHANCE_SUM,
        f"sum({_CHANCE_VALUES}) / len(game.chance_outcomes(state))",
    ),
}
GUS = {
    "maxn_value": _mutate(CORRECT["maxn_value"], "utilities[player])", "utilities[player - 1])"),
    "maxn_decision": _mutate(
        CORRECT["maxn_decision"],
        "game.result(state, action))[player]",
        "game.result(state, action))[player - 1]",
    ),
}
HANA = {
    "maxn_value": '''\
def maxn_value(game, state, root_player=None):
    """Max-n: I read every node from the root player's side."""
    if game.is_terminal(state):
        return game.utilities(state)
    if root_player is None:
        root_player = game.to_move(state)
    children = [game.result(state, action) for action in game.actions(state)]
    values = [maxn_value(game, child, root_player) for child in children]
    return max(values, key=lambda utilities: utilities[root_player])
''',
}

OVERRIDES: dict[str, dict[str, str | None]] = {
    "bob_last_ties": BOB,
    "carol_negamax": CAROL,
    "dan_strict_cutoff": DAN,
    "erin_max_starts_at_zero": ERIN,
    "frank_swapped_window": FRANK,
    "grace_min_never_cuts": GRACE,
    "heidi_root_picks_min": HEIDI,
    "ivan_returns_child": IVAN,
    "judy_no_alternation": JUDY,
    "mallory_fresh_window": MALLORY,
    "niaj_eager_children": NIAJ,
    "olivia_wrong_side_eval": OLIVIA,
    "peggy_last_child": PEGGY,
    "quentin_partial": QUENTIN,
    "sybil_syntax_error": SYBIL,
    "trent_infinite_loop": TRENT,
    "ursula_unit_sentinels": URSULA,
    "victor_no_terminal_test": VICTOR,
    "walter_textbook_depth": WALTER,
    "xena_value_or_heuristic": XENA,
    "yolanda_beta_min_alpha": YOLANDA,
    "zoe_cutoff_not_passed_up": ZOE,
    "yves_empty": YVES,
    "xavier_random_moves": XAVIER,
    "zack_first_action": ZACK,
    "abel_table_bound_as_exact": ABEL,
    "bea_later_tie_at_a_bound": BEA,
    "cleo_chance_as_max": CLEO,
    "dmitri_chance_as_min": DMITRI,
    "fatima_plain_average": FATIMA,
    "gus_maxn_wrong_component": GUS,
    "hana_maxn_root_view": HANA,
}

EXTRA_IMPORTS = {"xavier_random_moves": "import random\n"}

# --------------------------------------------------------------------------------------------
# Assignment 5: the Connect Four agents of the students who entered the contest.
# --------------------------------------------------------------------------------------------


FIXED_DEPTH = '''\
def connect_four_agent(game, state, seconds):
    """{doc}"""

    def search(node, depth, alpha, beta):
        if game.is_terminal(node):
            return game.utility(node)
        if depth == 0:
            return game.evaluate(node)
        maximising = game.to_move(node) == MAX
        value = -math.inf if maximising else math.inf
        for action in game.actions(node):
            found = search(game.result(node, action), depth - 1, alpha, beta)
            if maximising:
                value = max(value, found)
                alpha = max(alpha, value)
            else:
                value = min(value, found)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return value

    sign = 1 if game.to_move(state) == MAX else -1
    scores = {{}}
    for action in game.actions(state):
        scores[action] = sign * search(game.result(state, action), {below}, -math.inf, math.inf)
    return max(scores, key=scores.get)
'''
"""A fixed-depth alpha-beta agent (bob's and dan's): `below` plies searched below each move."""


AGENTS: dict[str, str] = {
    "alice_correct": module_source(agent) + "\n",  # the reference agent's module, as one cell
    "bob_last_ties": FIXED_DEPTH.format(
        doc="Three plies of alpha-beta with the course's evaluation, whatever the budget allows.",
        below=2,
    ),
    "dan_strict_cutoff": FIXED_DEPTH.format(
        doc="Four plies of alpha-beta with the course's evaluation: bob's search, one ply deeper.",
        below=3,
    ),
    "carol_negamax": '''\
def connect_four_agent(game, state, seconds):
    """Greedy: the move whose position the evaluation likes best (a win first)."""
    sign = 1 if game.to_move(state) == MAX else -1

    def score(action):
        child = game.result(state, action)
        if game.is_terminal(child):
            return sign * game.utility(child)
        return sign * game.evaluate(child)

    return max(game.actions(state), key=score)
''',
    "wendy_noisy_but_correct": """\
import math
import random

from games import MAX, OutOfStates

WEIGHTS = (
    (3, 4, 5, 7, 5, 4, 3),
    (4, 6, 8, 10, 8, 6, 4),
    (5, 8, 11, 13, 11, 8, 5),
    (5, 8, 11, 13, 11, 8, 5),
    (4, 6, 8, 10, 8, 6, 4),
    (3, 4, 5, 7, 5, 4, 3),
)
\"\"\"How many lines of four pass through each cell: a stone there can join that many.\"\"\"


def my_evaluation(board):
    \"\"\"X's stones minus O's, each weighted by the lines through its cell; well within +-1.\"\"\"
    score = 0
    for marks, weights in zip(board, WEIGHTS):
        for mark, weight in zip(marks, weights):
            if mark == "X":
                score += weight
            elif mark == "O":
                score -= weight
    return score / 200


def negamax(game, state, depth, alpha, beta, colour):
    \"\"\"Alpha-beta as negamax: the value for the player `colour` (1 for MAX, -1 for MIN).\"\"\"
    if game.is_terminal(state):
        return colour * game.utility(state)
    if depth == 0:
        return colour * my_evaluation(game.board(state))
    best = -math.inf
    for action in sorted(game.actions(state), key=lambda column: abs(column - 4)):
        child = game.result(state, action)
        best = max(best, -negamax(game, child, depth - 1, -beta, -alpha, -colour))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


def connect_four_agent(game, state, seconds):
    \"\"\"Deeper and deeper until the budget of states is spent; equal moves drawn at random.\"\"\"
    colour = 1 if game.to_move(state) == MAX else -1
    actions = sorted(game.actions(state), key=lambda column: abs(column - 4))
    best = actions[0]
    for depth in range(1, 43):
        try:
            scores = {
                action: -negamax(
                    game, game.result(state, action), depth - 1, -math.inf, math.inf, -colour
                )
                for action in actions
            }
        except OutOfStates:
            return best
        top = max(scores.values())
        best = random.choice([action for action in actions if scores[action] == top])
    return best
""",
    "xavier_random_moves": '''\
def connect_four_agent(game, state, seconds):
    """Any legal column."""
    return random.choice(game.actions(state))
''',
    "trent_infinite_loop": '''\
def connect_four_agent(game, state, seconds):
    """Thinks until it is sure, which is never."""
    while True:
        pass
''',
}
"""`connect_four_agent` of the students who entered the contest: the reference (alice, which
deepens until its budget of states is spent), a fixed three-ply search (bob), the same search
one ply deeper (dan), a greedy one-ply agent (carol), an agent that deepens until its budget is
spent with its own evaluation read off `game.board` and equal moves drawn at random (wendy), a
random one (xavier) and one that never answers (trent: two moves are stopped at their CPU time,
and the others forfeited unasked, all to the fallback column)."""

CONTEST_GRADES: dict[str, float] = {
    "alice_correct": 100,
    "dan_strict_cutoff": 72.5,
    "wendy_noisy_but_correct": 70,
    "bob_last_ties": 68.33,
    "carol_negamax": 40.67,
    "xavier_random_moves": 20,
    "trent_infinite_loop": 0,
}
"""Each agent's contest grade (`--assignment connect_four`, the default allowance), the same on
every run. dan beats bob 13 to 3 head to head (both colours, the eight openings), and is graded
above him; under the rules before the levels paid by share (all or nothing over two games) dan
scored 50 and bob 55."""


# The things a real notebook also holds, for wendy_noisy_but_correct: (position, source).
# A position is the function whose cell the extra cell follows ("" for right after the imports).
WENDY_EXTRAS = (
    ("", "%matplotlib inline\nimport matplotlib.pyplot as plt\n"),
    ("", "!pip list\n"),
    ("", 'name = input("name? ")\nprint("Hello,", name)\n'),
    ("minimax_value", 'print("minimax_value is defined")\n'),
    ("minimax_decision", "plt.plot([1, 2])\nplt.show()\n"),
    ("alphabeta_decision", 'print("alpha-beta done!")\n'),
    (
        "depth_limited_decision",
        """\
from games import TicTacToe

game = TicTacToe()
state = game.initial_state()
for square in (4, 0, 8, 2):
    state = game.result(state, square)
print(state)
print("minimax:", minimax_value(game, state), minimax_decision(game, state))
print("alpha-beta:", alphabeta_value(game, state), alphabeta_decision(game, state))
print("depth 2:", depth_limited_decision(game, state, 2, lambda s: 0))
""",
    ),
)

# --------------------------------------------------------------------------------------------
# Writing the notebooks.
# --------------------------------------------------------------------------------------------

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def student_code(student: str) -> dict[str, str]:
    """Return the student's cell source for each function they wrote, in assignment order."""
    overrides = OVERRIDES.get(student, {})
    code = {}
    for name in (*FUNCTIONS, *(CHANCE_FUNCTIONS if student in DID_ASSIGNMENT_6 else ())):
        source = overrides.get(name, CORRECT[name])
        if source is not None:
            code[name] = source
    if student in AGENTS:
        code["connect_four_agent"] = AGENTS[student]
    return code


def _title(student: str) -> str:
    return (
        f"{EXPECTED[student]}\n\n"
        f"# Assignment: minimax and alpha-beta ({student})\n\n"
        "A synthetic submission from the example class; see `examples/README.md`."
    )


def build_notebook(student: str) -> nbformat.NotebookNode:
    """Return `student`'s notebook as handed in: no outputs, one cell per function."""
    sources: list[tuple[str, str]] = [("markdown", _title(student))]
    imports = IMPORTS_WITH_CHANCE if student in DID_ASSIGNMENT_6 else IMPORTS
    sources.append(("code", EXTRA_IMPORTS.get(student, "") + imports))
    extras = WENDY_EXTRAS if student == "wendy_noisy_but_correct" else ()
    sources += [("code", source) for where, source in extras if where == ""]
    code = student_code(student)
    if not code:
        sources.append(("markdown", "I did not get to it."))
    for name, source in code.items():
        sources.append(("code", source))
        sources += [("code", extra) for where, extra in extras if where == name]
    cells = []
    for index, (kind, source) in enumerate(sources, start=1):
        make = new_markdown_cell if kind == "markdown" else new_code_cell
        cells.append(make(source=source.rstrip("\n"), id=f"cell-{index}"))
    notebook = new_notebook(
        cells=cells, metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    )
    nbformat.validate(notebook)
    return notebook


def truncated_text(notebook: nbformat.NotebookNode) -> str:
    """Return the notebook's JSON text cut off halfway, as if the save had been interrupted."""
    text = nbformat.writes(notebook)
    return text[: len(text) // 2]


BROKEN_JSON = {"rupert_broken_json"}


def write_class(directory: Path = CLASS_DIR) -> list[Path]:
    """Write every student's notebook into `directory`; return the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for student in EXPECTED:
        path = directory / f"{student}.ipynb"
        notebook = build_notebook(student)
        if student in BROKEN_JSON:
            path.write_text(truncated_text(notebook), encoding="utf-8")
        else:
            nbformat.write(notebook, path)
        written.append(path)
    return written


def readme_text() -> str:
    """Return examples/README.md: what the example class is and what each student should lose."""
    lines = [
        "# The example class",
        "",
        "Synthetic student submissions for the minimax and alpha-beta assignment. The autograder",
        "grades this class in its demo and its tests: each student makes one mistake that",
        "published code or pseudo-code is known to make (see `COURSE.md`), so each should lose",
        "exactly the points of the rules that mistake breaks and keep all the others.",
        "",
        "Every notebook `class/<student>.ipynb` is generated by `make_class.py` from correct",
        "building blocks plus that student's overrides; the first line of its first (markdown)",
        "cell says what the student did. Regenerate with",
        "",
        "    python examples/make_class.py",
        "",
        "which rewrites `class/` and this file byte for byte. Do not edit the notebooks by hand.",
        "",
        "Rules: " + ", ".join(f"`{rule}`" for rule in RULES) + ".",
        "Losses through a value function include the decisions that call it; where a rule is",
        "lost on some instances only, the table says so.",
        "",
        "| student | what they did | should lose |",
        "|---|---|---|",
    ]
    for student, description in EXPECTED.items():
        partly = PARTLY.get(student, {})
        lost = [
            f"`{rule}` ({partly[rule]})" if rule in partly else f"`{rule}`"
            for rule in SHOULD_LOSE[student]
        ]
        if set(SHOULD_LOSE[student]) == set(RULES):
            lost = ["all seven"]
        cell = ", ".join(lost) if lost else "nothing"
        escaped = description.replace("|", r"\|")
        lines.append(f"| `{student}` | {escaped} | {cell} |")
    lines += [
        "",
        "`rupert_broken_json.ipynb` is deliberately not valid JSON, and",
        "`sybil_syntax_error.ipynb` has a cell that does not compile; every other notebook passes",
        "nbformat validation. `trent_infinite_loop` never returns from `alphabeta_value`, so it",
        "needs the sandbox's time limit. `wendy_noisy_but_correct` calls `input()` at top level",
        "and has `%` magics and `!` shell lines, as real notebooks do.",
        "",
        "Six students also handed in the optional Assignment 6 (chance nodes and max-n):",
        ", ".join(f"`{student}`" for student in DID_ASSIGNMENT_6) + ". Grade it with",
        "`python -m autograder grade examples/class --assignment chance_and_maxn --out DIR`;",
        "the others then score 0 there, since their notebooks do not define its functions.",
        "",
        "Seven students entered the Connect Four contest (Assignment 5) with a",
        "`connect_four_agent`: `alice_correct` (the reference: iterative deepening until the",
        "move's budget of states is spent, ordering and a transposition table), `bob_last_ties`",
        "(three plies of alpha-beta, whatever the budget), `dan_strict_cutoff` (bob's search one",
        "ply deeper), `carol_negamax` (greedy, one ply), `wendy_noisy_but_correct` (deepens until",
        "the budget is spent, with its own evaluation read off `game.board` and equal moves drawn",
        "at random: the same draws every run, since the grader seeds `random` per game),",
        "`xavier_random_moves` (random columns) and `trent_infinite_loop` (never answers: two",
        "moves are stopped at their CPU time, the others forfeited unasked, all to the column",
        "nearest the centre). Grade them with `--assignment connect_four`, or let them play each",
        "other with `python -m autograder tournament examples/class --out DIR`. Their grades,",
        "the same on every run:",
        "",
        "| agent | contest grade |",
        "|---|---:|",
        *(f"| `{student}` | {grade:g} |" for student, grade in CONTEST_GRADES.items()),
        "",
        "Each rule pays by a share of games (or positions) won, so one game more or less moves a",
        "grade by a step: dan, who beats bob 13 to 3 head to head, is graded above him (under the",
        "earlier rules, all or nothing over two games a level, dan scored 50 and bob 55).",
        "",
        "Machine-readable: `make_class.EXPECTED` (the sentences above),",
        "`make_class.SHOULD_LOSE` (the rules), `make_class.DID_ASSIGNMENT_6`,",
        "`make_class.AGENTS` and `make_class.CONTEST_GRADES`.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    if set(EXPECTED) != set(SHOULD_LOSE):
        raise ValueError("every student needs both a description and the rules they lose")
    for student, lost in SHOULD_LOSE.items():
        if set(lost) - set(ALL_RULE_IDS):
            raise ValueError(f"{student}: unknown rules {sorted(set(lost) - set(ALL_RULE_IDS))}")
    paths = write_class()
    README.write_text(readme_text(), encoding="utf-8")
    print(f"wrote {len(paths)} notebooks to {CLASS_DIR} and {README.name}")


if __name__ == "__main__":
    main()
