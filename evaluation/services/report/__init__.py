"""The study report: a HEDS-style datasheet and a methods paragraph from a project and its stored statistics
(``content.project_report``), laid out as Markdown, LaTeX or HTML (``render``)."""
