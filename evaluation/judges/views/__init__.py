"""The judges' pages: ``pages`` (the lead's judges page), ``report`` (one judge's report) and its ``plots``."""
