"""Django's makemessages, also collecting the no-op markers Django has no keyword for.

``N_`` marks the bad-input messages of the scoring library, which imports no Django (``scoring.errors.N_``;
the Django side translates them when it shows them, ``annotator.input_errors``), and the presets' texts
(``annotator.presets``, where it is Django's ``gettext_noop``); ``pgettext_noop`` marks a preset's text
under a context (``annotator.presets.spec.pgettext_noop``). ``annotator.wording`` translates the presets' texts
when a page shows them.
"""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_", "--keyword=pgettext_noop:1c,2"]
