"""Crowdsourced studies, the whole feature in one folder: a public link that turns a recruiting platform's
participant into an annotator with items of their own and a time limit.

- ``models``: ``Study``, ``Participant``, ``ReleasedItem`` (re-exported by ``annotator.models``, like every
  model of the app, so their app label stays ``annotator``)
- ``services``: open and close a study, participants arriving and starting, their items, releasing expired ones
- ``selectors``: places left, where a participant stands, their clock, the lead's participant table
- ``forms``: the lead's settings form
- ``views/``: ``participant`` (the public link and the consent) and ``lead`` (the lead's study pages)
- ``urls``: their routes, included by ``annotator.urls``

Elsewhere, where Django or the import contracts want them: the REST endpoints in ``api.studies``, the pages'
templates in ``templates/annotator/studies/``, the ``lead_studies`` command in ``annotator/management/commands/``,
and the studies' part of the project archive in ``evaluation.archive.parts.studies``.
"""
