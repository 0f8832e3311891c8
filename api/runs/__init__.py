"""The runs' REST endpoints: ``views`` (upload, list, read, score again, per-dialogue scores, remove),
``serializers`` and their ``urls`` (included by ``api.urls``).

The feature's services and selectors are ``evaluation.runs``; this package stays in ``api`` because neither app
imports ``api``.
"""
