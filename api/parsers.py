"""Request bodies: DRF's JSON parser, with a body nested too deeply for Python's decoder answered as
a 400 (DRF's own lets the ``RecursionError`` through as a 500)."""

from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(gettext("JSON parse error - the request is nested too deeply")) from None
