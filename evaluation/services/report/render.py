"""The report's blocks (``outline``) as Markdown, LaTeX or a standalone HTML page, every text escaped for its
format: names of projects, criteria, studies, reasons and notes are user text, and an imported project's
are whatever its source held."""

from __future__ import annotations

import re

from django.template.loader import render_to_string
from django.utils import translation

from evaluation.services.report.content import status_text
from evaluation.services.report.outline import Block, Heading, Items, Paragraph, Table, report_blocks
from evaluation.services.report.sheet import Report

FORMATS = {"md": "text/markdown", "tex": "application/x-tex", "html": "text/html"}

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

# LaTeX's special characters, and the symbols the report prints that a text font may lack, as commands
TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "[": "{[}",
    "]": "{]}",
    "κ": r"\ensuremath{\kappa}",
    "α": r"\ensuremath{\alpha}",
    "τ": r"\ensuremath{\tau}",
    "–": "--",
    "—": "---",
    "\u00a0": " ",
}
_TEX_SPECIAL = re.compile("|".join(re.escape(c) for c in TEX))


def tex_escape(text: str) -> str:
    """``text`` as LaTeX that prints it: every special character a command, control characters gone.

    >>> tex_escape("50% & #1_a {x} ~ \\\\ ^ $")
    '50\\\\% \\\\& \\\\#1\\\\_a \\\\{x\\\\} \\\\textasciitilde{} \\\\textbackslash{} \\\\textasciicircum{} \\\\$'
    """
    return _TEX_SPECIAL.sub(lambda m: TEX[m.group()], _CONTROL.sub("", str(text)))


def _tex_cell(text: str) -> str:
    return tex_escape(" ".join(str(text).split()))  # one line: a blank line would end the cell's paragraph


def _tex_paragraph(text: str) -> str:
    """Paragraphs kept (a blank line), other line breaks as spaces."""
    return "\n\n".join(_tex_cell(p) for p in re.split(r"\n\s*\n", str(text)) if p.strip())


_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~!])")


def md_escape(text: str) -> str:
    """``text`` as Markdown that prints it: emphasis, links, code, headings and table bars escaped, HTML's
    ``< > &`` as entities (a Markdown viewer passes raw HTML on).

    >>> md_escape("*a* [b](c) <script>|")
    '\\\\*a\\\\* \\\\[b\\\\](c) &lt;script&gt;\\\\|'
    """
    text = _CONTROL.sub("", str(text)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_line(text: str) -> str:
    return md_escape(" ".join(str(text).split()))


def markdown(blocks: list[Block]) -> str:
    out = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {_md_line(b.text)}")
        elif isinstance(b, Paragraph):
            if b.kind == "warning":
                out.append(f"> **⚠ {_md_line(b.text)}**")
            elif b.kind == "quote":
                out.append("\n".join(f"> {md_escape(line)}".rstrip() for line in str(b.text).splitlines()))
            else:
                out.append(_md_line(b.text))
        elif isinstance(b, Items):
            out.append("\n".join(f"- {_md_line(item)}" for item in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(_md_line(h) for h in b.header) + " |", "|" + "---|" * len(b.header)]
            lines += ["| " + " | ".join(_md_line(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


TEX_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage{iftex}
\ifPDFTeX
  \usepackage[utf8]{inputenc}
  \usepackage[T1]{fontenc}
\else
  \usepackage{fontspec}
  \IfFileExists{xeCJK.sty}{\ifXeTeX\usepackage{xeCJK}\fi}{}
  \IfFileExists{luatexja.sty}{\ifLuaTeX\usepackage{luatexja}\fi}{}
\fi
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{array}
\usepackage[margin=2cm]{geometry}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5em}
\begin{document}
"""
TEX_HEADINGS = {1: r"\section*", 2: r"\subsection*", 3: r"\subsubsection*"}


def latex(blocks: list[Block]) -> str:
    """A standalone document (XeLaTeX or LuaLaTeX for the Japanese and Chinese wording; pdfLaTeX for English
    only); the methods paragraph is plain text to paste into a paper."""
    out = [TEX_PREAMBLE]
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{TEX_HEADINGS.get(b.level, TEX_HEADINGS[3])}{{{_tex_cell(b.text)}}}\n")
        elif isinstance(b, Paragraph):
            if b.kind == "warning":
                out.append(f"\\fbox{{\\parbox{{0.95\\linewidth}}{{\\textbf{{{_tex_cell(b.text)}}}}}}}\n")
            elif b.kind == "quote":
                out.append(f"\\begin{{quote}}\n{_tex_paragraph(b.text)}\n\\end{{quote}}\n")
            else:
                out.append(_tex_paragraph(b.text) + "\n")
        elif isinstance(b, Items):
            items = "\n".join(f"  \\item {_tex_cell(item)}" for item in b.items)
            out.append(f"\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n")
        elif isinstance(b, Table):
            width = f"{0.96 / len(b.header):.3f}"
            spec = "".join(f">{{\\raggedright\\arraybackslash}}p{{{width}\\linewidth}}" for _ in b.header)
            rows = [" & ".join(_tex_cell(c) for c in row) + r" \\" for row in b.rows]
            head = " & ".join(f"\\textbf{{{_tex_cell(h)}}}" for h in b.header) + r" \\"
            out.append(
                f"{{\\small\\begin{{longtable}}{{@{{}}{spec}@{{}}}}\n\\toprule\n{head}\n\\midrule\n\\endhead\n"
                + "\n".join(rows)
                + "\n\\bottomrule\n\\end{longtable}}\n"
            )
    out.append("\\end{document}\n")
    return "\n".join(out)


def html_document(blocks: list[Block], report: Report) -> str:
    """A standalone HTML page of the report (Django's templates escape every text)."""
    return render_to_string(
        "evaluation/report/document.html", {"blocks": blocks, "report": report, "language": report.language}
    )


def report_outline(report: Report) -> list[Block]:
    """The report's blocks, their prose in the report's language (the page lays these out too)."""
    with translation.override(report.language):
        return report_blocks(report, status_text(report))


def report_render(report: Report, fmt: str) -> str:
    """``report`` in ``fmt`` (``md``, ``tex`` or ``html``), its prose in the report's language."""
    blocks = report_outline(report)
    with translation.override(report.language):
        if fmt == "md":
            return markdown(blocks)
        if fmt == "tex":
            return latex(blocks)
        if fmt == "html":
            return html_document(blocks, report)
    raise ValueError(f"unknown report format {fmt!r}; one of {', '.join(FORMATS)}")
