"""The judge lab's services: a judge's report against the humans (``report``), its parts (``ppi``,
``bias``) and the comparison of a project's judges (``comparison``)."""
