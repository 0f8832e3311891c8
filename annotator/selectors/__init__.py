"""Reads that feed pages and endpoints; each does its own select_related/annotate."""
