"""Connect Four: an exact end-game solver made strong step by step, and a heuristic evaluation.

The solver follows Pascal Pons's tutorial (http://blog.gamesolver.org): negamax with alpha-beta
on bitboards, then centre-first move ordering, then the strong version with a transposition
table, a null-window search that narrows the score range, moves that lose at once pruned, and
the moves that create the most threats tried first. Scores use Pons's convention: for the
player to move, a win with one's k-th stone scores 22 - k, a loss to the opponent's k-th stone
-(22 - k), a draw 0.

Inside the solver a position is three ints, as in the tutorial: `current` (the bitboard of the
player to move), `mask` (every stone) and `moves` (stones played). The bit layout is that of
`games.connect_four`.
"""

from __future__ import annotations

from games.connect_four import (  # noqa: F401 - the evaluation's names are re-exported
    BOARD,
    BOTTOM,
    BOTTOM_CELLS,
    CELLS,
    CENTRE_WEIGHT,
    COLUMN_MASKS,
    EVALUATION_SCALE,
    STRIDE,
    TOP_CELLS,
    WIDTH,
    WINDOW_WEIGHTS,
    WINDOWS,
    ConnectFour,
    ConnectFourState,
    evaluation,
    has_four,
)

METHODS = ("alphabeta", "centre_first", "strong")
"""The solvers `ConnectFourSolver` offers, weakest first (see its docstring)."""

LEFT_TO_RIGHT = tuple(range(WIDTH))
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
"""Column indices (0 = leftmost) from the centre outwards: central stones join more lines."""


class ConnectFourSolver:
    """Exact Connect Four scores by negamax alpha-beta, counting the nodes searched.

    `method` chooses how much of Pons's tutorial is used (in brackets, Pons's published mean
    nodes per position on his end-game "easy" set; this code measures 283.6, 139.7 and 51.3):

    - "alphabeta": negamax alpha-beta, columns left to right, score window [-21, 21] (~284).
    - "centre_first": the same, columns tried from the centre outwards (~140).
    - "strong": transposition table of bounds, null-window search narrowing the score range,
      moves that let the opponent win at once skipped, threat-making moves first (~51).

    `nodes` counts the calls of the recursive search during the last `solve`. Each `solve`
    starts with an empty transposition table, so node counts compare positions fairly.

    >>> solver = ConnectFourSolver()
    >>> solver.solve("2252576253462244111563365343671351441"), solver.nodes > 0
    (-1, True)
    """

    def __init__(self, method: str = "strong") -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        self.method = method
        self.nodes = 0
        self._order = LEFT_TO_RIGHT if method == "alphabeta" else CENTRE_FIRST
        self._lower: dict[int, int] = {}
        self._upper: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"ConnectFourSolver({self.method!r})"

    def solve(self, position: str | ConnectFourState) -> int:
        """Return the exact score of `position` (a move string or a state) for the player to move.

        A finished game scores from the view of the player who would move next: a loss to the
        winner's k-th stone is -(22 - k), a full board 0. In pure Python every method solves
        Pons's end-game positions (at most 13 empty squares) in milliseconds; "strong" takes
        under a second with about 25 empty squares; the empty board is far out of reach.

        Raises:
            ValueError: a bad move string (see `ConnectFour.from_moves`).
            TypeError: `position` is neither a string nor a `ConnectFourState`.
        """
        state = _to_state(position)
        self.nodes = 0
        self._lower.clear()
        self._upper.clear()
        current, mask, moves = _bitboards(state)
        if has_four(current ^ mask):
            return -(22 - (current ^ mask).bit_count())  # the player who just moved has won
        if self.method == "strong":
            return self._narrowing_search(current, mask, moves)
        return self._alphabeta(current, mask, moves, -(CELLS // 2), CELLS // 2)

    def _alphabeta(self, current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        """Negamax with alpha-beta (fail-soft): the score for the player to move.

        Negamax is minimax written once: a child's score for the opponent, negated, is its
        score for us, and the window (alpha, beta) becomes (-beta, -alpha) one level down.
        Without a winning move, the best we can hope for is a win with our next stone but one,
        so beta shrinks to that bound before the children are searched.
        """
        self.nodes += 1
        if moves == CELLS:
            return 0
        playable = [index for index in self._order if not mask & TOP_CELLS[index]]
        for index in playable:
            if has_four(current | _stone(mask, index)):
                return (CELLS + 1 - moves) // 2
        beta = min(beta, (CELLS - 1 - moves) // 2)
        if alpha >= beta:
            return beta
        for index in playable:
            child_mask = mask | _stone(mask, index)
            score = -self._alphabeta(current ^ mask, child_mask, moves + 1, -beta, -alpha)
            if score >= beta:
                return score  # the opponent will not allow this line
            alpha = max(alpha, score)
        return alpha

    def _narrowing_search(self, current: int, mask: int, moves: int) -> int:
        """Find the exact score by a sequence of null-window searches (strong solver).

        A window (middle, middle + 1) only asks "is the score above middle?", and such a
        search prunes far more than a wide one. Each answer halves the range of scores still
        possible; the first guesses are pulled towards 0 (win/draw/loss is settled first).
        The transposition table carries what earlier searches proved into later ones.
        """
        if _winning_cells(current, mask) & _possible(mask):
            return (CELLS + 1 - moves) // 2  # win with the next stone: no search needed
        low, high = -((CELLS - moves) // 2), (CELLS + 1 - moves) // 2
        while low < high:
            middle = low + (high - low) // 2
            if middle <= 0 and int(low / 2) < middle:
                middle = int(low / 2)
            elif middle >= 0 and int(high / 2) > middle:
                middle = int(high / 2)
            score = self._negamax(current, mask, moves, middle, middle + 1)
            if score <= middle:
                high = score
            else:
                low = score
        return low

    def _negamax(self, current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        """Strong negamax alpha-beta; the player to move must not be able to win at once.

        Compared with `_alphabeta`: only moves that do not hand the opponent an immediate win
        are searched (if there are none, we lose with the opponent's next stone), the window
        is first narrowed by `_bounds` (score limits and the transposition table), children
        are tried in `_threat_order`, and every result is stored in the table as a bound.
        """
        self.nodes += 1
        candidates = _non_losing_moves(current, mask)
        if not candidates:
            return -((CELLS - moves) // 2)
        if moves >= CELLS - 2:
            return 0  # neither of the last two stones can win
        key = current + mask
        low, high = self._bounds(key, moves)
        if low >= beta:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        if alpha >= beta:
            return alpha  # low == high: the score is known exactly
        for stone in _threat_order(current, mask, candidates):
            score = -self._negamax(current ^ mask, mask | stone, moves + 1, -beta, -alpha)
            if score >= beta:
                self._lower[key] = score
                return score
            alpha = max(alpha, score)
        self._upper[key] = alpha
        return alpha

    def _bounds(self, key: int, moves: int) -> tuple[int, int]:
        """Return (low, high) with low <= score <= high, for a position searched by `_negamax`.

        Neither player can win at once (the opponent's immediate wins were pruned), so the
        score lies between losing with the opponent's stone after next and winning with our
        stone after next. The transposition table, keyed by `current + mask` (unique per
        position), may tighten both ends with what earlier searches proved.
        """
        low = -((CELLS - 2 - moves) // 2)
        high = (CELLS - 1 - moves) // 2
        return max(low, self._lower.get(key, low)), min(high, self._upper.get(key, high))


def connect_four_score(position: str | ConnectFourState) -> int:
    """Return the exact score of `position` for the player to move, with perfect play.

    `position` is a move string such as "4453" (columns 1..7, first player first) or a
    `ConnectFourState`. Positive: the player to move wins, with its k-th stone scoring 22 - k;
    negative: it loses; 0: draw. This is the convention of Pons's benchmark files.

    >>> connect_four_score("7422341735647741166133573473242566")
    1
    """
    return ConnectFourSolver("strong").solve(position)


def _to_state(position: str | ConnectFourState) -> ConnectFourState:
    if isinstance(position, ConnectFourState):
        return position
    if isinstance(position, str):
        return ConnectFour.from_moves(position)
    raise TypeError(
        f"a position is a move string such as '4453' or a ConnectFourState, not {position!r}"
    )


def _bitboards(state: ConnectFourState) -> tuple[int, int, int]:
    """Return (current, mask, moves): the stones of the player to move, all stones, their count."""
    mask = state.max_stones | state.min_stones
    moves = mask.bit_count()
    current = state.max_stones if moves % 2 == 0 else state.min_stones
    return current, mask, moves


def _stone(mask: int, index: int) -> int:
    """The cell a stone dropped into column `index` lands on (the column must not be full)."""
    return (mask + BOTTOM_CELLS[index]) & COLUMN_MASKS[index]


def _possible(mask: int) -> int:
    """The cells a stone can be dropped on right now, one per column that is not full."""
    return (mask + BOTTOM) & BOARD


def _winning_cells(stones: int, mask: int) -> int:
    """The empty cells that would complete four in a row for `stones`, playable now or not.

    For each direction, a cell wins if three stones line up with it: three on one side, or
    two on one side and one on the other (Pons's `compute_winning_position`).
    """
    found = (stones << 1) & (stones << 2) & (stones << 3)  # vertical: three stones below
    for shift in (STRIDE, STRIDE - 1, STRIDE + 1):  # horizontal and both diagonals
        pair = (stones << shift) & (stones << 2 * shift)
        found |= pair & (stones << 3 * shift)
        found |= pair & (stones >> shift)
        pair = (stones >> shift) & (stones >> 2 * shift)
        found |= pair & (stones << shift)
        found |= pair & (stones >> 3 * shift)
    return found & (BOARD ^ mask)


def _non_losing_moves(current: int, mask: int) -> int:
    """The playable cells that do not let the opponent win with its next stone.

    If the opponent threatens to win on a playable cell we must block it; two such threats
    cannot both be blocked (no move is safe). Never play just below an opponent's winning
    cell: that would let it drop its stone there.
    """
    possible = _possible(mask)
    opponent_wins = _winning_cells(current ^ mask, mask)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - 1):
            return 0
        possible = forced
    return possible & ~(opponent_wins >> 1)


def _threat_order(current: int, mask: int, candidates: int) -> list[int]:
    """The candidate stones, those that leave us the most winning cells first.

    Ties keep the centre-first order (Python's sort is stable).
    """
    stones = [candidates & COLUMN_MASKS[index] for index in CENTRE_FIRST]
    stones = [stone for stone in stones if stone]
    return sorted(stones, key=lambda stone: -_winning_cells(current | stone, mask).bit_count())


# The course's evaluation (lecture 04) lives in games, where students may import it; its names
# stay importable from here for the lectures and older code.
connect_four_evaluation = evaluation
