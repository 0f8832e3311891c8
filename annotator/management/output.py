"""Writing a command's streamed output: to standard output, or to a file that appears only once complete."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from django.core.management.base import BaseCommand


def chunks_write(
    command: BaseCommand, chunks: Iterable[bytes], output: str, *, as_text: Callable[[bytes], str] = bytes.decode
) -> None:
    """Write ``chunks`` as they are produced to ``output`` ("-": the command's standard output).

    A file is written beside the target (``NAME.partial``) and renamed over it once complete, so a failed
    export never leaves a truncated file under the real name; the size is reported on standard error.
    A standard output without a byte buffer (a test's StringIO) gets ``as_text`` of the whole output.
    """
    if output == "-":
        if hasattr(command.stdout, "buffer"):
            for chunk in chunks:
                command.stdout.buffer.write(chunk)
        else:
            command.stdout.write(as_text(b"".join(chunks)))
        return
    target = Path(output)
    partial = target.with_name(target.name + ".partial")
    written = 0
    try:
        with open(partial, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
                written += len(chunk)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    command.stderr.write(f"wrote {written} bytes to {output}")
