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
    "\u200b": r"\allowbreak{}",
}
_TEX_SPECIAL = re.compile("|".join(re.escape(c) for c in TEX))


def tex_escape(text: str) -> str:
    """``text`` as LaTeX that prints it: every special character a command, control characters gone.

    >>> tex_escape("50% & #1_a {x} ~ \\\\ ^ $")
    '50\\\\% \\\\& \\\\#1\\\\_a \\\\{x\\\\} \\\\textasciitilde{} \\\\textbackslash{} \\\\textasciicircum{} \\\\$'
    """
    return _TEX_SPECIAL.sub(lambda m: TEX[m.group()], _CONTROL.sub("", str(text)))


_LONG_WORD = re.compile(r"[!-~]{24,}")  # Latin runs only: CJK text breaks between its characters


def breakable(text: str, every: int = 12) -> str:
    """Long unbroken runs (fingerprints, identifiers) with a zero-width break point every ``every`` characters,
    which ``tex_escape`` turns into ``\\allowbreak``: a line may end inside them instead of running into the
    margin.

    >>> breakable("fingerprint " + "0123456789abcdef" * 2) == "fingerprint 0123456789ab\u200bcdef01234567\u200b89abcdef"
    True
    """
    return _LONG_WORD.sub(
        lambda m: "\u200b".join(m.group()[i : i + every] for i in range(0, len(m.group()), every)), text
    )


def _tex_cell(text: str) -> str:
    return tex_escape(breakable(" ".join(str(text).split())))  # one line: a blank line would end the paragraph


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
  \IfFontExistsTF{CJKFONT}{\setmainfont{CJKFONT}}{%
    \IfFontExistsTF{Noto Sans CJK JP}{\setmainfont{Noto Sans CJK JP}}{}}
  \ifXeTeX\XeTeXlinebreaklocale "ja"\XeTeXlinebreakskip=0pt plus 1pt\relax\fi
  \ifLuaTeX\IfFileExists{luatexja.sty}{\usepackage{luatexja}}{}\fi
\fi
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{array}
\usepackage[margin=2cm]{geometry}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.5em}
\setlength{\emergencystretch}{3em}
\begin{document}
"""
# The main font is a Noto CJK font: each holds every Chinese and Japanese character besides Latin (its region
# chooses only the glyphs' forms), so one font prints the wording in all three languages without xeCJK (which
# Debian splits across texlive-lang-cjk and texlive-lang-chinese); XeTeX breaks lines between CJK characters
# with ICU's rules (\XeTeXlinebreaklocale). The report's language picks the forms.
CJK_FONTS = {"zh-hans": "Noto Serif CJK SC"}
CJK_FONT = "Noto Serif CJK JP"
TEX_HEADINGS = {1: r"\section*", 2: r"\subsection*", 3: r"\subsubsection*"}
WIDE_TABLE = 7  # columns from which a table is set a size smaller, so that its words fit their columns


def column_shares(header: list[str], rows: list[list[str]]) -> list[float]:
    """Each column's share of the text width, in proportion to its longest word (which no line break can
    split) plus a quarter of its mean text, so that long cells get more room than short figures.

    >>> [round(x, 2) for x in column_shares(["Criterion", "Units"], [["breakdown, merged (NB+PB,B)", "2000"]])]
    [0.69, 0.31]
    """
    weights = []
    for column in zip(header, *rows):
        words = [len(w) for cell in column for w in str(cell).split()] or [1]
        mean = sum(len(str(cell)) for cell in column) / len(column)
        weights.append(max(max(words), 3) + 1 + mean / 4)  # + 1: headers are bold
    total = sum(weights)
    return [w / total for w in weights]


def tex_columns(shares: list[float]) -> str:
    r"""Ragged-right columns that together fill the text width exactly (each its share of ``\linewidth`` less
    the separations between columns; none outside, ``@{}``), hyphenating from the first word on: no table runs
    into the margin.

    >>> tex_columns([0.5, 0.5]).count(r"\dimexpr(\linewidth-2\tabcolsep)*500/1000\relax")
    2
    """
    n = len(shares)
    return (
        "@{}"
        + "".join(
            rf">{{\raggedright\arraybackslash\hspace{{0pt}}}}p{{\dimexpr(\linewidth-{2 * (n - 1)}\tabcolsep)"
            rf"*{int(share * 1000)}/1000\relax}}"
            for share in shares
        )
        + "@{}"
    )


def latex(blocks: list[Block], language: str = "en") -> str:
    """A standalone document for XeLaTeX (Debian: ``texlive-xetex fonts-noto-cjk``), which prints the Japanese
    and Chinese wording in a Noto CJK font (LuaLaTeX with luatexja works too; pdfLaTeX only where no text is
    Japanese or Chinese); the methods paragraph is plain text to paste into a paper."""
    out = [TEX_PREAMBLE.replace("CJKFONT", CJK_FONTS.get(language, CJK_FONT))]
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
            spec = tex_columns(column_shares(b.header, b.rows))
            size = r"\small" if len(b.header) < WIDE_TABLE else r"\footnotesize"  # the agreement table's eight
            rows = [" & ".join(_tex_cell(c) for c in row) + r" \\" for row in b.rows]
            head = " & ".join(f"\\textbf{{{_tex_cell(h)}}}" for h in b.header) + r" \\"
            out.append(
                f"{{{size}\\begin{{longtable}}{{{spec}}}\n\\toprule\n{head}\n\\midrule\n\\endhead\n"
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
            return latex(blocks, report.language)
        if fmt == "html":
            return html_document(blocks, report)
    raise ValueError(f"unknown report format {fmt!r}; one of {', '.join(FORMATS)}")
