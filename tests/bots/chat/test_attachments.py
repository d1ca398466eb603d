"""Which attachments a message's run gets, and the one line naming those it does not."""

from __future__ import annotations

from bots.chat.attachments import FetchError, TooLarge, receive
from bots.inbound import Attachment, InboundMessage
from core.media import File, Image
from tests.media_samples import pdf_bytes, png_bytes

PNG = png_bytes()
SERVED = {"a.png": PNG, "b.pdf": pdf_bytes("hello there"), "notes.md": b"# Notes\n- milk\n"}


def _attachment(name: str, kind: str = "", size: int | None = None) -> Attachment:
    return Attachment(name=name, media_type=kind, size=size, platform_id=f"id-{name}", url=name)


async def _fetch(attachment: Attachment, limit: int) -> bytes:
    """Serves SERVED, bounded as the adapters' fetches are."""
    if attachment.url not in SERVED:
        raise FetchError("HTTP 404")
    data = SERVED[attachment.url]
    if len(data) > limit:
        raise TooLarge
    return data


async def test_usable_attachments_become_images_and_text_files() -> None:
    """An image stays bytes; a PDF and a Markdown file (type guessed from the name) are text."""
    got = await receive(
        [_attachment("a.png", "image/png"), _attachment("b.pdf"), _attachment("notes.md")],
        _fetch,
        max_bytes=10_000,
        max_files=5,
    )
    (image,) = got.images
    assert isinstance(image, Image) and image.content == PNG and image.id == "id-a.png"
    pdf, notes = got.files
    assert (
        isinstance(pdf, File) and pdf.content == "hello there" and pdf.size == len(SERVED["b.pdf"])
    )
    assert notes.content == "# Notes\n- milk\n" and notes.mime_type == "text/markdown"
    assert got.note() is None


async def test_each_refusal_says_which_and_why_in_one_line() -> None:
    """Over the count, a type not read, declared too big, too big when fetched, not found."""
    got = await receive(
        [
            _attachment("a.png", "image/png", size=50_000),  # declared over: not fetched
            _attachment("song.mp3", "audio/mpeg"),
            _attachment("notes.md", size=10),  # declares 10 bytes, is 15
            _attachment("gone.txt", "text/plain"),
            _attachment("b.pdf"),
            _attachment("extra.png", "image/png"),
        ],
        _fetch,
        max_bytes=14,
        max_files=5,
    )
    assert got.images == () and got.files == ()
    note = got.note()
    assert note is not None and "\n" not in note
    assert note.startswith(
        "I could not use 6 attachments: `a.png` (49 KB; the limit is 14 bytes); "
    )
    assert "`song.mp3` (audio/mpeg is not a type I read; I read images" in note
    assert "`notes.md` (larger than the limit of 14 bytes)" in note
    assert "`gone.txt` (could not download it: HTTP 404)" in note
    assert "`extra.png` (only 5 per message)" in note


async def test_an_unreadable_pdf_is_refused_before_the_run() -> None:
    """A file named .pdf that is not a PDF: refused with the reason, nothing given to the run."""
    SERVED["broken.pdf"] = b"%PDF-1.4 not really"
    got = await receive([_attachment("broken.pdf")], _fetch, max_bytes=1000, max_files=5)
    assert got.files == ()
    assert got.note() == (
        "I could not use 1 attachment: `broken.pdf` (it is not a readable PDF (PdfStreamError))."
    )


async def test_a_front_end_that_cannot_download_names_each_attachment() -> None:
    """handle_message without a fetch: the text runs; each attachment is named as unread."""
    from bots.app.service import chat_service
    from bots.settings import Settings
    from core.agent import Agent
    from core.models.scripted import ScriptedModel

    model = ScriptedModel(["Hi."])
    config = Settings(statebot_default_agent="helper", redis_url=None)
    service = chat_service({"helper": Agent(name="helper", model=model)}, settings=config)
    msg = InboundMessage(
        platform="test", workspace="w", channel="c", thread=None, user="u", text="hello",
        event_id="e", addressed=True,
        attachments=(_attachment("a.png", "image/png"), _attachment("b.pdf")),
    )  # fmt: skip
    reply = await service.handle_message(msg)
    assert reply is not None
    assert reply.text == (
        "I could not use 2 attachments: `a.png` (attachments are not read here); `b.pdf` "
        "(attachments are not read here).\n\nHi."
    )
    assert model.requests[0].messages[-1].images is None
