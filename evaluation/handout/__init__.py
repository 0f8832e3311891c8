"""Handing items out, the evaluation side: ``services`` (the adaptive budget's part of the statistics payload) and
``selectors`` (the dashboard's adaptive-budget section; its template is
``templates/evaluation/handout/_dashboard.html``). The hand-out itself is ``annotator.handout``; the study report's
sentences on it stay with the report's other parts (``evaluation.services.report.adaptive``)."""
