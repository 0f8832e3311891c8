"""Chat transcripts as JSON lines, as chat logs are kept today: one conversation per line, in either form.

* OpenAI messages: ``{"id", "messages": [{"role", "content"}], "system"?: NAME, "meta"?: {...}}``. ``content``
  is text, or a list of parts of which the text parts are kept (``{"type": "text", "text"}``).
* ShareGPT: ``{"id", "conversations": [{"from", "value"}], "system"?: NAME, "meta"?: {...}}``; ``human`` is
  the user and ``gpt`` the assistant.

The speakers are the roles (``user``, ``assistant``, and any other the transcript names); messages of the
role ``system`` are the system prompt, kept with the dialogue's source data (``system_prompt``), not turns to
judge. ``system`` names the system (the chatbot, the model) that took part, kept per dialogue
(``source_meta["system"]``): the NLPCC summary, the power analysis and the report compare systems by it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from scoring.errors import N_
from scoring.input import Record, read_json_lines

from .base import ParsedDialogue, ParsedPost

SHAREGPT_SPEAKERS = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant"}
PROMPT_ROLE = "system"


def read_chat(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    with open(path, "rb") as fh:
        for line, record in read_json_lines(fh, display):
            yield parse_chat_dialogue(line, record, language=language)


def _content(at: Record, message: dict, key: str, where: str) -> str:
    """A message's text: a string, or the text parts of a list of parts, joined by blank lines."""
    content = at.field(message, key, (str, list), where)
    if isinstance(content, str):
        return content
    texts = []
    for i, part in enumerate(content):
        kind = at.field(part, "type", str, f"{where}.{key}[{i}]")
        if kind == "text":
            texts.append(at.field(part, "text", str, f"{where}.{key}[{i}]"))
    if not texts:
        raise at.error(N_("has no text part"), f"{where}.{key}")
    return "\n\n".join(texts)


def parse_chat_dialogue(line: Record, record, *, language: str) -> ParsedDialogue:
    """One line's conversation (either form); errors name the line until the id is read, then the dialogue."""
    at = line.at(line.field(record, "id", (str, int)))
    if "messages" in record:
        messages, role_key, text_key, form = at.field(record, "messages", list), "role", "content", "openai"
    elif "conversations" in record:
        messages, role_key, text_key, form = at.field(record, "conversations", list), "from", "value", "sharegpt"
    else:
        raise at.error(N_('has neither "messages" (OpenAI) nor "conversations" (ShareGPT)'), "messages")
    posts, prompt = [], []
    field = "messages" if form == "openai" else "conversations"
    for i, message in enumerate(messages):
        where = f"{field}[{i}]"
        role = at.field(message, role_key, str, where).strip()
        if not role:
            raise at.error(N_("is empty"), f"{where}.{role_key}")
        text = _content(at, message, text_key, where)
        if role == PROMPT_ROLE:
            prompt.append(text)
            continue
        speaker = SHAREGPT_SPEAKERS.get(role, role) if form == "sharegpt" else role
        posts.append(ParsedPost(speaker=speaker, text=text, source_turn_index=i))
    if not posts:
        raise at.error(N_("has no turns (only a system prompt, or nothing)"), field)
    meta = {"format": "chat", "form": form, "meta": at.field(record, "meta", dict) if "meta" in record else {}}
    if "system" in record:
        meta["system"] = at.text(record, "system", non_empty=True, max_length=200)
    if prompt:
        meta["system_prompt"] = prompt
    return ParsedDialogue(
        file=line.file,
        external_id=at.id,
        posts=posts,
        language=at.field(record, "language", str) if "language" in record else language,
        source_meta=meta,
    )
