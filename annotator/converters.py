"""The ``id`` path converter: a database id, at most 64 bits; any other number is no match (a 404).

Django's ``int`` converter takes any number of digits, and a lookup with a number beyond the
column's 64 bits fails in the database driver (a 500). Imported by every URL module that uses it;
registered once, here.
"""

from django.urls import register_converter

MAX_ID = (1 << 63) - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError(f"{value} is beyond a 64-bit id")  # Django answers 404: no URL matched
        return number

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
