"""The runs' selectors: ``leaderboard``, ``freshness`` (whether a run's scores are current) and ``scores_csv``."""
