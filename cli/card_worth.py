"""What a card is worth, as ``simulate --marginal`` prints it: shared beside marginal points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ruledraft.lab.figures import formatted

if TYPE_CHECKING:
    from rich.table import Table

MARGINAL_LEGEND = (
    "shared: a rule's points split among the cards it reads; marginal: what the seat loses without that copy "
    "(round, and game end for kept cards), scored again; marginal points do not add up to the score. "
    "A race's points are not in marginal (it scored turn by turn, which a table cannot replay), so a card "
    "only a race reads shows 0. copies: the copies on the tables when their round is scored (not those a "
    "race discarded or an effect took off before)"
)


def marginal_table(figures: dict) -> Table:
    """Per card: shared points per game (when the per-card figures were counted),
    marginal points per game with its 95% interval, copies valued per game, and
    marginal points per copy."""
    from rich.table import Table

    shared = {c["card"]: c["points_per_game"] for c in figures.get("cards") or []}
    table = Table(title="Points a card brings per game: shared, and marginal (without that copy)")
    for name in ("card", "shared", "marginal", "95% CI", "copies", "per copy"):
        table.add_column(name, justify="left" if name == "card" else "right", no_wrap=name != "card")
    for r in figures["marginal"]:
        per = r["points_per_copy"]
        table.add_row(
            r["card"],
            formatted(shared[r["card"]], ".2f") if r["card"] in shared else "-",
            formatted(r["points_per_game"], ".2f"),
            " to ".join(formatted(x, ".2f") for x in r["interval"]) if figures["games"] > 1 else "-",
            f"{r['copies_per_game']:.2f}",
            formatted(per, ".2f") if per is not None else "-",
        )
    return table


def marginal_parts(figures: dict) -> list[Table | str]:
    """The table and its legend."""
    return [marginal_table(figures), MARGINAL_LEGEND]
