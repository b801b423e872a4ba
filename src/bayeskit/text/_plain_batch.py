"""The plain messages of a batch read by one kernel call for all their header blocks.

A message that is one ``text/plain`` part is read without its MIME tree; a news corpus is
mostly such messages, and a kernel call, a header list and the search of its names a message
were half of what reading a post cost. :func:`plain_parts` reads a batch of them with one call
of :func:`._mail_kernels.scan_heads` and keeps only the fields the header tokens read (subject,
sender, recipients, mailer): the same answers as the reader's other paths (the tests compare
them on every SpamAssassin message and every 20 Newsgroups post, and on generated batches).
One message (``.email.plain_tokens``) is a batch of one.
"""

from __future__ import annotations

from ._mail_words import use_kernels
from ._mailread import _content_type, _DeclineError, _decoded, _fields, _kernel_module

__all__ = ["PLAIN_BATCH_BYTES", "plain_parts"]

#: The most bytes of messages :func:`plain_parts` reads by one kernel call (copied side by
#: side, and as much again for their unfolded headers): a batch of large messages is split.
PLAIN_BATCH_BYTES = 1 << 23


def plain_parts(
    datas: list[bytes], most: int
) -> list[tuple[tuple[str, str, str, str], str, bytes] | None]:
    """Each message of at most ``most`` bytes that is one ``text/plain`` part without a
    Content-Disposition, its header block ASCII without encoded words (None for others), by
    one kernel call for all their header blocks, and with the subject, sender, recipients and
    mailer (X-Mailer, else User-Agent) its header tokens read in place of every header: what
    ``.email`` makes of :func:`plain_part`'s answer (``_named_fields``), where a kernel call,
    a header list and its names' search a message were half of a news post's reading.
    None for every message until the reader turns to its kernels (this batch's bytes count
    toward it, as reading them does)."""
    out: list[tuple[tuple[str, str, str, str], str, bytes] | None] = [None] * len(datas)
    if not use_kernels(sum(map(len, datas))):
        return out
    taken = [
        m
        for m, data in enumerate(datas)
        if len(data) <= most and (b"\r" not in data or data.count(b"\r") == data.count(b"\r\n"))
    ]
    group: list[int] = []
    size = 0
    for m in taken:
        if group and size + len(datas[m]) > PLAIN_BATCH_BYTES:
            _plain_batch(datas, group, out)
            group, size = [], 0
        group.append(m)
        size += len(datas[m])
    if group:
        _plain_batch(datas, group, out)
    return out


def _plain_batch(
    datas: list[bytes],
    taken: list[int],
    out: list[tuple[tuple[str, str, str, str], str, bytes] | None],
) -> None:
    """:func:`plain_parts` of the messages ``taken`` of ``datas``, by one kernel call, into
    ``out``."""
    kernel = _kernel_module()
    np = kernel.np
    chosen = [datas[m] for m in taken]
    joined = b"".join(chosen)
    sizes = np.fromiter(map(len, chosen), np.int64, len(chosen))
    ends = np.cumsum(sizes)
    starts = ends - sizes
    begins = starts.tolist()
    for k, data in enumerate(chosen):
        if data.startswith(b"From "):  # an mbox envelope
            starts[k] += data.find(b"\n") + 1
    flat = np.empty(max(len(joined), 1), np.uint8)
    found = np.empty((len(chosen), kernel.HEADS_COLUMNS), np.int64)
    kernel.scan_heads(
        np.frombuffer(joined, np.uint8),
        starts,
        ends,
        kernel.CONTENT_TABLE,
        kernel.NAMED_TABLE,
        flat,
        found,
    )
    heads = flat.tobytes()  # (one copy: each field a slice of it)
    named = kernel.HEADS_NAMED
    content_at = kernel.HEADS_CONTENT
    for m, data, row, begin in zip(taken, chosen, found.tolist(), begins, strict=True):
        if row[kernel.HEADS_STATUS] != kernel.HEAD_OK or not row[kernel.HEADS_PLAIN]:
            continue
        raw_type, cte, disposition = (
            None if a < 0 else joined[a:b].decode("ascii").rstrip("\r\n")
            for a, b in zip(
                row[content_at : content_at + 6 : 2],
                row[content_at + 1 : content_at + 6 : 2],
                strict=True,
            )
        )
        if disposition is not None or _content_type(raw_type) != "text/plain":
            continue
        try:
            payload = _decoded(data[row[kernel.HEADS_BODY] - begin :], (cte or "").strip().lower())
        except _DeclineError:
            continue
        subject, sender, to, mailer, agent = (
            None if a < 0 else heads[a:b].decode("ascii")
            for a, b in zip(row[named::2], row[named + 1 :: 2], strict=True)
        )
        fields = (subject or "", sender or "", to or "", mailer or agent or "")
        out[m] = fields, _fields(raw_type, None)[0], payload
