"""The budget per item's REST endpoint: ``views``, ``serializers`` and their ``urls`` (included by ``api.urls``).

The hand-out's models, services and selectors are ``annotator.handout``; this package stays in ``api`` because
``annotator`` never imports ``api``.
"""
