"""The catalogue of circulating mistakes: what each costs, how the feedback names it, who makes it.

One table feeds every place a mistake shows up: the grader's diagnosis re-enacts the entries
it can recognise (`autograder.grading.diagnosis.VARIANTS`, keyed by these ids) and names them with
`hint`; the class report ranks them by `label`; the example class (`examples/make_class.py`)
has one `student` per entry, whose code re-enacts it and who must lose exactly `loses`; the
bug hunt's buggy functions list the ids they contain; tests/test_rule_mutants.py takes each
rule's mutant from an entry. To add a mistake: add an entry here, its example student's code
in examples/make_class.py, and (if the grader can recognise it) a variant in diagnosis.py.
"""

from __future__ import annotations

from dataclasses import dataclass

_ALPHABETA = ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning")
_DEPTH_LIMITED = ("depth_limited_value", "depth_limited_decision")
_DECISIONS = ("minimax_decision", "alphabeta_decision", "alphabeta_pruning")
_EVERY_RULE = ("minimax_value", "minimax_decision", *_ALPHABETA, *_DEPTH_LIMITED)
_EXPECTIMINIMAX = ("expectiminimax_value", "expectiminimax_decision")
_MAXN = ("maxn_value", "maxn_decision")


@dataclass(frozen=True)
class Mistake:
    """One mistake that circulates in published minimax and alpha-beta code.

    `hint` holds the words of the feedback that names it (the whole phrase for the mistakes
    the diagnosis re-enacts); `loses` the rules that the reference with this mistake loses;
    `student` the example student who makes it ("" for the few the example class leaves to the
    adversarial tests); `partly` lists (rule, where) for rules lost on some instances only.
    """

    id: str
    hint: str
    label: str
    summary: str
    loses: tuple[str, ...]
    student: str
    partly: tuple[tuple[str, str], ...] = ()


MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "strict_cutoff",
        "cut-offs are strict (alpha > beta): with alpha >= beta, ties would prune too",
        "cut-offs are strict: ties do not prune",
        "Correct, but alpha-beta cuts off only on a strict > (Berkeley's rule).",
        ("alphabeta_pruning",),
        "dan_strict_cutoff",
        (("alphabeta_pruning", "tie-heavy instances only"),),
    ),
    Mistake(
        "max_starts_at_zero",
        "a MAX node starts its running value at 0 instead of minus infinity",
        "a MAX node starts at 0",
        "A MAX node's running value starts at 0 instead of -inf in minimax and alpha-beta.",
        ("minimax_value", "minimax_decision", *_ALPHABETA),
        "erin_max_starts_at_zero",
    ),
    Mistake(
        "children_swapped",
        "its children are searched with the window swapped, (beta, alpha) instead of (alpha, beta)",
        "children given (beta, alpha)",
        "Alpha-beta passes (beta, alpha) to its children: the window is swapped one level down.",
        _ALPHABETA,
        "",
    ),
    Mistake(
        "alpha_never_raised",
        "the MAX branch never raises alpha, so no MIN node below it cuts off on it",
        "alpha never raised at MAX nodes",
        "Alpha-beta's MAX branch never updates alpha: values are right, pruning is lost.",
        ("alphabeta_pruning",),
        "",
    ),
    Mistake(
        "horizon_at_max_only",
        "only MAX nodes test the horizon: a MIN node at depth 0 searches on instead of evaluating",
        "the horizon tested at MAX nodes only",
        "depth_limited_value tests depth == 0 only in its MAX branch.",
        _DEPTH_LIMITED,
        "",
    ),
    Mistake(
        "swapped_window",
        "the window starts swapped (alpha = +inf, beta = -inf), so every node stops after its "
        "first child",
        "the window starts swapped",
        "alphabeta_value defaults to alpha=+inf, beta=-inf, and the decision relies on them.",
        _ALPHABETA,
        "frank_swapped_window",
    ),
    Mistake(
        "min_never_cuts",
        "the MIN branch never updates beta or never cuts off",
        "the MIN branch never cuts off",
        "In alpha-beta the MIN branch never updates beta and never cuts off.",
        ("alphabeta_pruning",),
        "grace_min_never_cuts",
    ),
    Mistake(
        "root_picks_min",
        "is max/min the right way round",
        "max and min the wrong way round (picks the worst move)",
        "The minimax and alpha-beta decisions pick the minimum child for MAX (and max for MIN).",
        _DECISIONS,
        "heidi_root_picks_min",
        (("alphabeta_pruning", "the decision group: wrong moves"),),
    ),
    Mistake(
        "returns_child",
        "it looks like a state or a pair, not an action",
        "a decision that returns a state, not an action",
        "The decisions return the best child state instead of the action.",
        (*_DECISIONS, "depth_limited_decision"),
        "ivan_returns_child",
        (("alphabeta_pruning", "the decision group: wrong moves"),),
    ),
    Mistake(
        "no_alternation",
        "players do not alternate: every level maximises",
        "players do not alternate",
        "Players do not alternate: every level of every search maximises.",
        _EVERY_RULE,
        "judy_no_alternation",
    ),
    Mistake(
        "max_min_swapped",
        "MAX and MIN are swapped: MAX nodes take the smallest child's value and MIN nodes the "
        "largest",
        "MAX and MIN swapped",
        "Minimax and alpha-beta back up min at MAX nodes and max at MIN nodes.",
        ("minimax_value", "minimax_decision", *_ALPHABETA),
        "",
    ),
    Mistake(
        "fresh_window",
        "children are searched with a fresh (-inf, +inf) window instead of the current alpha "
        "and beta",
        "children searched with a fresh window",
        "Alpha-beta searches every child with a fresh (-inf, +inf) window instead of alpha, beta.",
        ("alphabeta_pruning",),
        "mallory_fresh_window",
    ),
    Mistake(
        "eager_children",
        "all children are generated before the loop, so pruning saves no generation work",
        "all children generated before the loop",
        "Alpha-beta generates all children before its loop, so pruning saves no generation.",
        ("alphabeta_pruning",),
        "niaj_eager_children",
    ),
    Mistake(
        "wrong_side_evaluation",
        "the evaluation seems scored from the wrong side at odd depths",
        "the evaluation is scored from the wrong side at odd depths",
        "depth_limited_value negates the evaluation at odd plies below the node searched.",
        _DEPTH_LIMITED,
        "olivia_wrong_side_eval",
    ),
    Mistake(
        "last_child",
        "it is the last action",
        "the best move is replaced on ties or by the last action examined",
        "The decisions return the last action examined, not the best one.",
        (*_DECISIONS, "depth_limited_decision"),
        "peggy_last_child",
        (("alphabeta_pruning", "the decision group: wrong moves"),),
    ),
    Mistake(
        "unit_sentinels",
        "running values start at -1/+1 instead of -inf/+inf (fine only while utilities stay in "
        "-1..1)",
        "running values start at -1/+1",
        "Running values start at -1/+1 instead of -inf/+inf in minimax and alpha-beta.",
        ("minimax_value", "minimax_decision", *_ALPHABETA),
        "ursula_unit_sentinels",
    ),
    Mistake(
        "no_terminal_test",
        "check that terminal states use utility (even at the horizon)",
        "terminal states or a utility of 0 mishandled",
        "depth_limited_value tests depth == 0 before is_terminal, so it evaluates terminal "
        "states at the horizon.",
        _DEPTH_LIMITED,
        "victor_no_terminal_test",
    ),
    Mistake(
        "textbook_depth",
        "looks one ply further than asked",
        "depth convention: searches one ply too deep",
        "Depth-limited search uses the textbook convention (count up, cut off when depth > d), "
        "so it looks one ply further.",
        _DEPTH_LIMITED,
        "walter_textbook_depth",
    ),
    Mistake(
        "value_or_heuristic",
        "that a utility of 0 is not treated as missing",
        "terminal states or a utility of 0 mishandled",
        "depth_limited_value returns `utility or evaluate(state)`, so a terminal utility of 0 "
        "is replaced by the evaluation.",
        _DEPTH_LIMITED,
        "xena_value_or_heuristic",
    ),
    Mistake(
        "beta_from_alpha",
        "a MIN node sets beta = min(alpha, value) instead of min(beta, value)",
        "beta = min(alpha, value) in the MIN branch",
        "Alpha-beta's MIN node sets beta = min(alpha, value).",
        ("alphabeta_value", "alphabeta_pruning"),
        "yolanda_beta_min_alpha",
        (
            ("alphabeta_value", "most groups"),
            ("alphabeta_pruning", "prunes more than a correct alpha-beta can"),
        ),
    ),
    Mistake(
        "cutoff_not_passed_up",
        "cut-offs are tested only at nodes whose children are leaves, not passed up the tree",
        "cut-offs not passed up the tree",
        "Alpha-beta cuts off only among terminal children: inner nodes never stop early.",
        ("alphabeta_pruning",),
        "zoe_cutoff_not_passed_up",
    ),
    Mistake(
        "minimax_as_alphabeta",
        "nothing is pruned: this is minimax under the name of alpha-beta",
        "minimax under the name of alpha-beta",
        "alphabeta_value is plain minimax: it takes alpha and beta but never cuts off.",
        ("alphabeta_pruning",),
        "",
    ),
    Mistake(
        "fresh_root_window",
        "searches each root child with a fresh window: carry the best value so far into the "
        "later children's alpha/beta",
        "the root searches each child with a fresh window",
        "The alpha-beta decision calls alphabeta_value on each child with the default window, "
        "so the root prunes nothing.",
        ("alphabeta_pruning",),
        "",
    ),
    Mistake(
        "table_bound_as_exact",
        "a transposition table stores a result as exact even when it was a cut-off's bound (store "
        "whether it is exact, a lower or an upper bound, and use a bound only to narrow the window "
        "or to cut off)",
        "a transposition table stores bounds as exact values",
        "Alpha-beta keeps a transposition table that stores every result as exact, even a "
        "cut-off's bound.",
        ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning"),
        "abel_table_bound_as_exact",
        (
            ("alphabeta_value", "the tic-tac-toe group"),
            ("alphabeta_decision", "the tic-tac-toe group"),
            ("alphabeta_pruning", "the tic-tac-toe group"),
        ),
    ),
    Mistake(
        "later_tie_at_a_bound",
        "that value is a cut-off's bound",
        "a later move kept on a tie with a cut-off's bound",
        "The decisions carry the window and keep a later action whose value only ties the best, "
        "though with the window carried that value may be a cut-off's bound.",
        ("alphabeta_decision", "depth_limited_decision"),
        "bea_later_tie_at_a_bound",
        (
            ("alphabeta_decision", "the tic-tac-toe group"),
            ("depth_limited_decision", "the tic-tac-toe group"),
        ),
    ),
    # Lecture 06: chance nodes and several players (graded by `--assignment chance_and_maxn`).
    Mistake(
        "chance_as_max",
        "a chance node takes its best child, as if nature played for MAX",
        "a chance node treated as MAX",
        "Expectiminimax backs up a chance node with max, as if nature were on MAX's side.",
        _EXPECTIMINIMAX,
        "cleo_chance_as_max",
    ),
    Mistake(
        "chance_as_min",
        "a chance node takes its worst child, as if nature played for MIN",
        "a chance node treated as MIN",
        "Expectiminimax backs up a chance node with min, as if nature were on MIN's side.",
        _EXPECTIMINIMAX,
        "dmitri_chance_as_min",
    ),
    Mistake(
        "chance_plain_average",
        "a chance node averages its children and ignores the probabilities (weight each "
        "child's value by its probability from game.chance_outcomes)",
        "probabilities ignored at chance nodes",
        "Expectiminimax averages a chance node's children evenly instead of weighting them by "
        "their probabilities.",
        _EXPECTIMINIMAX,
        "fatima_plain_average",
        (
            ("expectiminimax_value", "trees with uneven probabilities (a fair die hides it)"),
            ("expectiminimax_decision", "trees with uneven probabilities"),
        ),
    ),
    Mistake(
        "maxn_wrong_component",
        "each node maximises the previous player's component, utilities[player - 1] (players "
        "are numbered from 0: the player to move maximises utilities[player])",
        "max-n maximises another player's component",
        "Max-n maximises utilities[player - 1] at every node, as if players counted from 1.",
        _MAXN,
        "gus_maxn_wrong_component",
    ),
    Mistake(
        "maxn_root_view",
        "every node maximises the root player's component (each node belongs to the player to "
        "move there, who maximises its own)",
        "max-n reads every node from the root player's view",
        "Max-n maximises the root player's utility at every node, as if everyone played for it.",
        _MAXN,
        "hana_maxn_root_view",
    ),
    Mistake(
        "maxn_paranoid",
        "the root player maximises its component and every other player minimises it, as in "
        "the paranoid view (max-n is not paranoid: each player to move maximises its own "
        "component)",
        "max-n searched with the paranoid view",
        "Max-n lets the root player maximise its utility and every other player minimise it, "
        "the paranoid view, instead of each maximising its own.",
        _MAXN,
        "",
    ),
    Mistake(
        "maxn_early_return",
        "each node returns its first child's vector without comparing the others (a return "
        "inside the loop over the actions: compare every child, and return after the loop)",
        "max-n returns its first child (a return inside the loop)",
        "Max-n returns inside its loop over the actions, so each node takes its first child.",
        _MAXN,
        "",
    ),
)

_BY_ID = {mistake.id: mistake for mistake in MISTAKES}


def mistake(mistake_id: str) -> Mistake:
    """The catalogue's entry for `mistake_id`."""
    try:
        return _BY_ID[mistake_id]
    except KeyError:
        raise KeyError(f"no mistake {mistake_id!r} in the catalogue") from None
