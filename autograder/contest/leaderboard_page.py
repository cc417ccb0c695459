"""The tournament's pages: the leaderboard, and a replay page per game with a board per move.

Everything a student wrote (agent names, error texts, notes) is escaped. The pages hold no
external asset: the boards are inline SVG, the move stepper a few lines of inline script, and
without script every board is shown one after the other.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from autograder.contest.integrity import Thrown, Usage, usage_flags
from games.connect_four import HEIGHT, WIDTH, ConnectFour, cell
from games.protocol import IllegalActionError

if TYPE_CHECKING:
    from autograder.contest.referee import PlayedGame
    from autograder.contest.standings import Standing

STYLE = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2rem auto;
       max-width: 64rem; color: #1d2430; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
td, th { border-bottom: 1px solid #dde2ea; padding: .3rem .5rem; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.lost { color: #b42318; } .muted { color: #5b6575; font-size: .9rem; }
.boards { display: flex; flex-wrap: wrap; gap: .8rem; }
figure { margin: 0; } figcaption { font-size: .85rem; max-width: 12rem; }
svg.board { width: 12rem; height: auto; display: block; }
.x { fill: #d92b2b; } .o { fill: #f2c230; } .last { stroke: #111; stroke-width: 2.5; }
.stepping figure { display: none; } .stepping figure.shown { display: block; }
.stepper { margin: .8rem 0; display: none; } .js .stepper { display: block; }
ol.moves { columns: 3; font-size: .9rem; } .js ol.moves li { cursor: pointer; }
.note { color: #b54708; }
"""

SIZE = 24
"""Pixels per board cell in the SVG's own units (the page scales the board)."""

_HOLES = (
    "<svg width='0' height='0' style='position:absolute' aria-hidden='true'><defs>"
    f"<pattern id='holes' width='{SIZE}' height='{SIZE}' patternUnits='userSpaceOnUse'>"
    f"<circle cx='{SIZE / 2:g}' cy='{SIZE / 2:g}' r='{SIZE * 0.38:g}' fill='#fff'/></pattern>"
    "</defs></svg>"
)

_STEPPER = """
<script>
(function () {
  var boards = document.getElementById('boards');
  var figures = boards.getElementsByTagName('figure');
  var slider = document.getElementById('step');
  var shown = figures.length - 1;
  function show(index) {
    shown = Math.max(0, Math.min(figures.length - 1, index));
    for (var i = 0; i < figures.length; i++) figures[i].className = i === shown ? 'shown' : '';
    slider.value = shown;
  }
  document.documentElement.className = 'js';
  boards.className = 'boards stepping';
  slider.max = figures.length - 1;
  slider.oninput = function () { show(Number(slider.value)); };
  document.getElementById('first').onclick = function () { show(0); };
  document.getElementById('back').onclick = function () { show(shown - 1); };
  document.getElementById('next').onclick = function () { show(shown + 1); };
  document.getElementById('last').onclick = function () { show(figures.length - 1); };
  document.onkeydown = function (event) {
    if (event.key === 'ArrowLeft') show(shown - 1);
    if (event.key === 'ArrowRight') show(shown + 1);
  };
  var moves = document.getElementById('moves').getElementsByTagName('li');
  for (var m = 0; m < moves.length; m++)
    moves[m].onclick = (function (index) { return function () { show(index); }; })(m + 1);
  show(0);
})();
</script>
"""

_FILTER = """
<script>
document.getElementById('filter').oninput = function () {
  var wanted = this.value.toLowerCase();
  var rows = document.getElementById('games').getElementsByTagName('tr');
  for (var i = 1; i < rows.length; i++)
    rows[i].style.display = rows[i].textContent.toLowerCase().indexOf(wanted) < 0 ? 'none' : '';
};
</script>
"""


def game_file(number: int) -> str:
    """The replay page of game `number`, relative to the leaderboard page."""
    return f"games/{number:05d}.html"


def result_text(game: PlayedGame) -> str:
    """The score as a chess table writes it: 1-0, ½-½ or 0-1 (first player's score first)."""
    return {0: "1–0", 1: "0–1", None: "½–½"}[game.winner]


def leaderboard_html(
    standings: Sequence[Standing],
    absent: Sequence[tuple[str, str]],
    games: Sequence[PlayedGame],
    settings: str,
    usage: Mapping[str, Usage] | None = None,
    thrown: Sequence[Thrown] = (),
) -> str:
    """The leaderboard: the rated agents by rank, those not playing with the reason, and every
    game, numbered from 1 in `games` order, linked to its replay page. For the instructor, each
    agent's states served and time a move, what is flagged about them (`integrity`) and the
    games that look thrown."""
    usage = usage or {}
    esc = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Connect Four tournament</title><style>{STYLE}</style></head><body>",
        "<h1>Connect Four tournament</h1>",
        f"<p class='muted'>{esc(settings)}</p>",
        "<table id='standings'><tr><th class='num'>rank</th><th>agent</th>"
        "<th class='num' title='mu - 3 sigma: the rating it has earned with high confidence'>"
        "rating</th><th class='num'>mu</th><th class='num'>sigma</th><th class='num'>games</th>"
        "<th class='num'>wins</th><th class='num'>draws</th><th class='num'>losses</th>"
        "<th class='num' title='moves over time, played by the grader'>forfeits</th>"
        "<th class='num' title='games lost by a crash or an illegal move'>crashes</th>"
        "<th class='num' title='states served through game.result, a move'>states</th>"
        "<th class='num' title='CPU seconds (sleep included), a move'>seconds</th>"
        "<th>flagged</th></tr>",
    ]
    for rank, standing in enumerate(standings, start=1):
        parts.append(
            f"<tr><td class='num'>{rank}</td><td>{esc(standing.name)}</td>"
            f"<td class='num'><b>{standing.ordinal:.2f}</b></td>"
            f"<td class='num'>{standing.mu:.2f}</td><td class='num'>{standing.sigma:.2f}</td>"
            f"<td class='num'>{standing.games}</td><td class='num'>{standing.wins}</td>"
            f"<td class='num'>{standing.draws}</td><td class='num'>{standing.losses}</td>"
            f"<td class='num'>{standing.forfeits}</td><td class='num'>{standing.crashes}</td>"
            + _usage_cells(usage.get(standing.name))
            + "</tr>"
        )
    parts.append("</table>")
    if thrown:
        parts.append(
            "<h2>Games that look thrown</h2><p class='muted'>An agent rated far above its "
            "opponent missed a win in one or let a loss in one through; a shared odd first "
            "move may be a signal agreed between them. Look at the replays.</p>"
            "<table id='thrown'><tr><th class='num'>#</th><th>stronger</th><th>weaker</th>"
            "<th>the move</th><th>same odd first move</th></tr>"
        )
        parts += [
            f"<tr><td class='num'><a href='{game_file(t.number)}'>{t.number}</a></td>"
            f"<td>{esc(t.strong)}</td><td>{esc(t.weak)}</td><td>{esc(t.what)}</td>"
            f"<td>{esc(t.signal) or '–'}</td></tr>"
            for t in thrown
        ]
        parts.append("</table>")
    if absent:
        parts.append("<h2>Not playing</h2><table id='absent'><tr><th>agent</th><th>why</th></tr>")
        parts += [
            f"<tr><td>{esc(name)}</td><td class='lost'>{esc(reason)}</td></tr>"
            for name, reason in absent
        ]
        parts.append("</table>")
    parts.append(
        f"<h2>Games ({len(games)})</h2><p><label>show the games of "
        "<input id='filter' placeholder='an agent'></label></p>"
        "<table id='games'><tr><th class='num'>#</th><th>X (first)</th><th>O (second)</th>"
        "<th>opening</th><th>result</th><th>how it ended</th></tr>"
    )
    for number, game in enumerate(games, start=1):
        parts.append(
            f"<tr><td class='num'><a href='{game_file(number)}'>{number}</a></td>"
            f"<td>{esc(game.players[0])}</td><td>{esc(game.players[1])}</td>"
            f"<td>{esc(game.opening) or '–'}</td><td>{result_text(game)}</td>"
            f"<td>{esc(game.ended)}</td></tr>"
        )
    parts += ["</table>", _FILTER, "</body></html>"]
    return "\n".join(parts)


def _usage_cells(used: Usage | None) -> str:
    if used is None:
        return "<td class='num'>–</td><td class='num'>–</td><td></td>"
    flags = "; ".join(usage_flags(used))
    return (
        f"<td class='num'>{used.states_per_move:,.0f}</td>"
        f"<td class='num'>{used.seconds_per_move:.3f}</td>"
        f"<td class='lost'>{html.escape(flags)}</td>"
    )


def game_html(number: int, game: PlayedGame) -> str:
    """A game's replay page: how it ended, the moves, and the board after the opening and after
    every move (the last stone ringed), stepped through with the buttons or arrow keys."""
    esc = html.escape
    first, second = (esc(name) for name in game.players)
    names = game.players if len(game.opening) % 2 == 0 else game.players[::-1]
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Game {number}: {first} – {second}</title><style>{STYLE}</style></head><body>",
        _HOLES,
        "<p><a href='../leaderboard.html'>← leaderboard</a></p>",
        f"<h1>Game {number}: <span class='x-name'>{first}</span> (X, red) – "
        f"<span class='o-name'>{second}</span> (O, yellow)</h1>",
        f"<p><b>{result_text(game)}</b>: {esc(game.ended)}</p>",
        f"<p>Opening: {esc(game.opening) or 'none (the empty board)'}</p>",
        "<ol id='moves' class='moves'>",
    ]
    marks = ("X", "O") if len(game.opening) % 2 == 0 else ("O", "X")
    for index, move in enumerate(game.moves):
        note = f" <span class='note'>{esc(move.note)}</span>" if move.note else ""
        states = f" <span class='muted'>({move.states:,} states)</span>" if move.states else ""
        parts.append(f"<li>{marks[index % 2]} plays {esc(str(move.column))}{states}{note}</li>")
    parts.append("</ol><div id='boards' class='boards'>")
    parts += [
        f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"
        for svg, caption in _boards(game, [f"{marks[0]} ({names[0]})", f"{marks[1]} ({names[1]})"])
    ]
    parts += [
        "</div>",
        "<p class='stepper'><button id='first'>« first</button> <button id='back'>‹ back</button> "
        "<input id='step' type='range' min='0' value='0' aria-label='move'> "
        "<button id='next'>next ›</button> <button id='last'>last »</button> "
        "<span class='muted'>or the arrow keys, or click a move</span></p>",
        _STEPPER,
        "</body></html>",
    ]
    return "\n".join(parts)


def _boards(game: PlayedGame, movers: list[str]) -> list[tuple[str, str]]:
    """The SVG and caption of the position after the opening and after each move, `movers`
    naming who plays the first move and who the second. A move the rules refuse (the game's
    last, lost by it) leaves the board as it was."""
    rules = ConnectFour()
    state = ConnectFour.from_moves(game.opening)
    last = int(game.opening[-1]) if game.opening else None
    boards = [(board_svg(state, last), "the position after the opening")]
    for index, move in enumerate(game.moves, start=1):
        caption = f"move {index}: {movers[(index - 1) % 2]} plays {move.column}"
        try:
            state = rules.result(state, move.column)
            last = move.column
        except IllegalActionError:
            caption += " (illegal: the board stays as it was)"
        if move.note:
            caption += f" ({move.note})"
        boards.append((board_svg(state, last), caption))
    return boards


def board_svg(state, last_column: int | None = None) -> str:
    """A 7x6 board as inline SVG: red X, yellow O, the top stone of `last_column` ringed."""
    width, height = WIDTH * SIZE, HEIGHT * SIZE
    radius = f"{SIZE * 0.38:g}"
    parts = [
        f"<svg class='board' viewBox='0 0 {width} {height}' role='img'>"
        f"<rect width='{width}' height='{height}' rx='6' fill='#2456a6'/>"
        f"<rect width='{width}' height='{height}' fill='url(#holes)'/>"
    ]
    occupied = state.max_stones | state.min_stones
    for column in range(1, WIDTH + 1):
        height = sum(1 for row in range(HEIGHT) if occupied & cell(column, row))
        for row in range(height):
            mark = "x" if state.max_stones & cell(column, row) else "o"
            ringed = column == last_column and row == height - 1
            parts.append(_stone(column, row, mark + " last" if ringed else mark, radius))
    parts.append("</svg>")
    return "".join(parts)


def _stone(column: int, row: int, classes: str, radius: str) -> str:
    x = (column - 0.5) * SIZE
    y = (HEIGHT - row - 0.5) * SIZE
    return f"<circle cx='{x:g}' cy='{y:g}' r='{radius}' class='{classes}'/>"
