"""The crowdsourced studies' REST endpoints: ``views``, ``serializers`` and their ``urls`` (included by ``api.urls``).

The feature's models, services and selectors are ``annotator.studies``; this package stays in ``api`` because
``annotator`` never imports ``api``.
"""
