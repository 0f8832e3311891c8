"""Django's makemessages, also collecting the scoring library's message templates (marked ``N_``).

``scoring.errors.N_`` marks the bad-input messages of the library, which imports no Django; the Django
side translates them when it shows them (``annotator.input_errors``).
"""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]
