"""The judge lab's services: a judge's report against the humans (``report``, with ``margin``, ``ppi``,
``pairwise`` and ``verdicts``), the stored report (``cached``), its sentences (``wording``), and a run
registered as a judge (``from_runs``)."""
