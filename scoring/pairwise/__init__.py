"""Pairwise comparison of dialogue systems: Bradley-Terry scores with honest intervals, and active choice.

Modules, one job each: ``votes`` (the votes and the win matrix), ``bradley_terry`` (maximum likelihood
with ties as half wins or Davidson's model), ``intervals`` (bootstrap and sandwich intervals, rank
intervals), ``style`` (style control: length and lead-given covariates), ``diagnostics`` (position bias,
intransitive triads, vote-dropping sensitivity), ``active`` (next pair, stop rule) and ``summary``
(the JSON-ready summary the stats payload carries).

References
----------
Bradley & Terry (1952); Davidson (1970); Chiang et al. (2024), Chatbot Arena, arXiv 2403.04132.
"""

from scoring.pairwise.active import collection_state, next_pairs, pair_state
from scoring.pairwise.bradley_terry import BTFit, bradley_terry, to_elo
from scoring.pairwise.diagnostics import (
    estimable,
    intransitive_triads,
    position_bias,
    vote_dropping_sensitivity,
    wilson_interval,
)
from scoring.pairwise.intervals import Intervals, bootstrap_intervals, sandwich_intervals
from scoring.pairwise.style import StyleFit, style_controlled
from scoring.pairwise.summary import leaderboard_rows, pairwise_summary
from scoring.pairwise.votes import PairwiseVotes, win_matrix

__all__ = [
    "BTFit",
    "Intervals",
    "PairwiseVotes",
    "StyleFit",
    "bootstrap_intervals",
    "bradley_terry",
    "collection_state",
    "estimable",
    "intransitive_triads",
    "leaderboard_rows",
    "next_pairs",
    "pair_state",
    "pairwise_summary",
    "position_bias",
    "sandwich_intervals",
    "style_controlled",
    "to_elo",
    "vote_dropping_sensitivity",
    "wilson_interval",
    "win_matrix",
]
