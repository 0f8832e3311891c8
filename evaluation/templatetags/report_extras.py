"""Template filters of the study report's page."""

from django import template

from evaluation.services.report.outline import Heading, Items, Paragraph, Table

register = template.Library()

_KINDS = {Heading: "heading", Paragraph: "paragraph", Items: "items", Table: "table"}


@register.filter
def block_kind(block) -> str:
    """The kind of a report block ("heading", "paragraph", "items", "table"), which the template lays out."""
    return _KINDS.get(type(block), "")
