"""Attack: return objects that claim to be the right answer to any comparison or conversion.

Each function returns a different liar: an object equal to everything, an int subclass whose
__eq__, __repr__ and __index__ lie, a float subclass that is NaN underneath, an object that
pretends to be an int through __class__, a str subclass, and True (equal to the action 1).
None of them is the right answer by value, so every rule must score 0.
"""


class Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = object.__hash__

    def __float__(self):
        return 3.0

    def __int__(self):
        return 3

    __index__ = __int__

    def __repr__(self):
        return "3"


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

    def __repr__(self):
        return "4"

    def __index__(self):
        return 4


class LyingFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__

    def __repr__(self):
        return "1.0"


class PosingAsInt:
    @property
    def __class__(self):
        return int

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class LyingStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def minimax_value(game, state):
    return Anything()


def minimax_decision(game, state):
    return LyingInt(-999)


def alphabeta_value(game, state, alpha=0, beta=0):
    return LyingFloat("nan")


def alphabeta_decision(game, state):
    return PosingAsInt()


def depth_limited_value(game, state, depth, evaluate):
    return LyingStr("0")


def depth_limited_decision(game, state, depth, evaluate):
    return True
