#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import gc
import os
import sys


def main() -> None:
    # Loading the code (settings, apps, the command, its modules) makes a few hundred thousand objects that live as
    # long as the process, and the cyclic garbage collector would walk them again and again while they are made:
    # a tenth of a second of a command's start-up. It is off until the command's own work starts (config.cli_help).
    gc.disable()
    # numpy's OpenBLAS starts a thread per core, each with its buffers, as numpy is imported: 50 ms of the start-up
    # of every command (``check`` loads numpy with the views). A command's numeric work is elementwise and gains
    # little from them; the environment's own value wins. Web processes and workers do not run this file.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # safe unless asked otherwise: the production settings (DEBUG off, SECRET_KEY required); the single-person
    # set-up names config.settings.local (scripts/serve.sh), the tests config.settings.test (pytest.ini)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    from config.cli_help import Utility  # Django's, with the platform's commands grouped in `help`

    Utility(sys.argv).execute()
    # The command is done and its objects all go with the process: freezing them spares the interpreter's
    # final full garbage collection over every one of them (50-60 ms after a score_run of STC-3 Chinese).
    # Objects are still released and files flushed on exit.
    gc.freeze()


if __name__ == "__main__":
    main()
