"""The judges' REST endpoints: ``views`` (list, create, read, remove), ``report`` (a judge against the humans),
``serializers`` and their ``urls`` (included by ``api.urls``).

The feature's models, services and selectors are ``annotator.judges`` and ``evaluation.judges``; this package stays
in ``api`` because ``annotator`` never imports ``api``.
"""
