"""Bluesky (AT Protocol, https://docs.bsky.app) posts into the ``posts`` table.

Shapes read, in files or lines of any of the JSON layouts ``iter_records`` knows:
- records ``{uri, cid, value}`` (getRecord) and ``{"records": [...]}`` (listRecords);
- post views: getPostThread ``{"thread": ...}`` (parents and replies walked), getAuthorFeed /
  getTimeline ``{"feed": [{"post": ...}]}``, searchPosts / getPosts ``{"posts": [...]}``;
  a post quoted in a view's embed counts too when the view carries its full record (``value``);
- Jetstream events ``{did, time_us, kind, commit: {operation, collection, rkey, record}}``.
Everything else (likes, follows, feed generators, profile lists) is one ``not_a_post`` drop per
record. Bluesky has no tombstone bodies: a deleted post is a Jetstream delete (``deleted_post``);
an empty text (an image-only post) is ``empty_body``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pastcast.sources.fields import as_instant, integer, text
from pastcast.sources.imported import Imported
from pastcast.sources.post_rows import RECORD_ERRORS, STAGE, clean_text, gone_reason, keep, post_row, records

PLATFORM = "bluesky"
POST = "app.bsky.feed.post"
# Lists of non-post items in API answers, and the type each item has.
ITEM_LISTS = {"follows": "app.bsky.actor.defs#profileView",
              "followers": "app.bsky.actor.defs#profileView",
              "profiles": "app.bsky.actor.defs#profileViewDetailed",
              "actors": "app.bsky.actor.defs#profileView",
              "repostedBy": "app.bsky.actor.defs#profileView",
              "likes": "app.bsky.feed.getLikes#like",
              "feeds": "app.bsky.feed.defs#generatorView",
              "lists": "app.bsky.graph.defs#listView"}
GONE_NODES = {"notFound": "not_found_post", "blocked": "blocked_post"}  # thread placeholders


@dataclass(frozen=True)
class Found:
    """A post (``record`` set) or a record to drop (``reason`` set) found in a document."""

    kind: str  # "post" or "record"
    uri: str | None
    record: dict | None = None
    author: str | None = None  # the author's DID when a view names it
    likes: Any = None
    reason: str | None = None
    what: str = ""


def read_bluesky(paths: Sequence[Path], imported: Imported | None = None) -> Imported:
    """Every post of ``paths``; table ``posts``."""
    imported, kept = imported or Imported(), set[str]()
    for path, where, doc in records(imported, paths):
        try:
            found = list(_document(doc))
        except RECORD_ERRORS as exc:  # a shape no walker expected
            found = [Found("post", None, reason="malformed_post", what=repr(exc))]
        for item in found:
            _account(imported, kept, item, path, where)
    return imported


def _account(imported: Imported, kept: set[str], item: Found, path: Path, where: str) -> None:
    imported.seen(item.kind)
    item_id = f"{PLATFORM}:{item.uri}" if item.uri else f"{path.name}:{where}"
    detail = f"{path} {where}"
    if item.reason:
        imported.drop(item_id, item.kind, STAGE, item.reason, f"{detail}: {item.what}")
        return
    try:
        body = clean_text(text((item.record or {}).get("text"), "text"))
        if reason := gone_reason(body):
            imported.drop(item_id, "post", STAGE, reason, f"{detail}: text {body!r}")
            return
        row = _row(item, body)
    except RECORD_ERRORS as exc:
        imported.drop(item_id, "post", STAGE, "malformed_post", f"{detail}: {exc}")
        return
    keep(imported, kept, row, detail)


def _row(item: Found, body: str) -> dict:
    authority, _, rkey = _uri_parts(item.uri)
    record = item.record or {}
    reply = _dict(record.get("reply"))
    parent = text(_dict(reply.get("parent")).get("uri"), "reply.parent.uri")
    did = text(item.author, "author did") or authority  # an at:// uri may name a handle; views give the DID
    return post_row(
        post_id=f"{PLATFORM}:{item.uri}", platform=PLATFORM, kind="reply" if reply else "post",
        created_at=as_instant(record, "createdAt"), text=body, author=did,
        url=f"https://bsky.app/profile/{authority}/post/{rkey}",
        parent_id=f"{PLATFORM}:{parent}" if parent else None, score=integer(item.likes, "likeCount"))


def _uri_parts(uri: str | None) -> tuple[str, str, str]:
    """(authority, collection, rkey) of a post's ``at://`` uri."""
    parts = str(uri).removeprefix("at://").split("/")
    if not str(uri).startswith("at://") or len(parts) != 3 or parts[1] != POST:
        raise ValueError(f"not a post at:// uri: {uri!r}")
    return parts[0], parts[1], parts[2]


def _collection(uri: Any) -> str:
    parts = str(uri or "").removeprefix("at://").split("/")
    return parts[1] if len(parts) > 1 else ""


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _document(doc: Any) -> Iterator[Found]:
    """Every post and non-post record in one input document (or line)."""
    if isinstance(doc, ValueError):  # a line that is not JSON
        yield Found("post", None, reason="malformed_post", what=str(doc))
    elif not isinstance(doc, dict):
        yield Found("post", None, reason="malformed_post", what=f"not an object: {doc!r:.80}")
    elif "thread" in doc:
        yield from _thread(doc["thread"])
    elif "time_us" in doc and "did" in doc:
        yield from _jetstream(doc)
    elif isinstance(doc.get("feed"), list):
        for entry in doc["feed"]:
            yield from _view(_dict(entry).get("post"))
    elif isinstance(doc.get("posts"), list):
        for view in doc["posts"]:
            yield from _view(view)
    elif isinstance(doc.get("records"), list):
        for record in doc["records"]:
            yield _record(record)
    elif key := next((k for k in ITEM_LISTS if isinstance(doc.get(k), list)), None):
        for entry in doc[key]:
            entry = _dict(entry)
            actor = _dict(entry.get("actor")).get("did")
            yield Found("record", entry.get("uri") or entry.get("did") or actor,
                        reason="not_a_post", what=entry.get("$type") or ITEM_LISTS[key])
    elif "value" in doc:
        yield _record(doc)
    elif "record" in doc and "author" in doc:
        yield from _view(doc)
    elif doc.get("$type") == POST:
        yield Found("post", None, reason="malformed_post", what="a post record without its uri")
    else:
        yield Found("record", doc.get("uri"), reason="not_a_post",
                    what=doc.get("$type") or f"unknown shape, keys {sorted(doc)[:8]}")


def _record(doc: Any) -> Found:
    """A repository record ``{uri, cid, value}``."""
    doc = _dict(doc)
    value, uri = _dict(doc.get("value")), doc.get("uri")
    kind = value.get("$type") or _collection(uri)
    if kind != POST:
        return Found("record", uri, reason="not_a_post", what=kind or "no $type")
    return Found("post", uri, record=value)


def _view(view: Any) -> Iterator[Found]:
    """A post view (or an embed's view record, whose record is ``value``) and the posts it quotes."""
    view = _dict(view)
    record = view.get("record") if "record" in view else view.get("value")
    if not isinstance(record, dict):
        yield Found("post", view.get("uri"), reason="malformed_post",
                    what="a post view without its record")
        return
    yield Found("post", view.get("uri"), record=record,
                author=_dict(view.get("author")).get("did"), likes=view.get("likeCount"))
    for embed in [view.get("embed"), *(view.get("embeds") or [])]:
        quoted = _dict(_dict(embed).get("record"))
        if "value" not in quoted:  # recordWithMedia wraps the record view once more
            quoted = _dict(quoted.get("record"))
        if _dict(quoted.get("value")).get("$type") == POST:
            yield from _view(quoted)


def _thread(root: Any) -> Iterator[Found]:
    """Every post of a getPostThread answer: the post, its parents and all replies."""
    stack = [root]
    while stack:  # a stack, not recursion: threads can be deeper than Python's limit
        node = _dict(stack.pop())
        if gone := next((r for flag, r in GONE_NODES.items() if node.get(flag)), None):
            yield Found("post", node.get("uri"), reason=gone, what=node.get("$type", ""))
            continue
        if "post" not in node:
            yield Found("post", None, reason="malformed_post",
                        what=f"thread node, keys {sorted(node)[:8]}")
            continue
        yield from _view(node["post"])
        if node.get("parent"):
            stack.append(node["parent"])
        stack.extend(reversed(node.get("replies") or []))


def _jetstream(event: dict) -> Iterator[Found]:
    commit = _dict(event.get("commit"))
    if event.get("kind") != "commit":
        yield Found("record", event.get("did"), reason="not_a_post",
                    what=f"jetstream {event.get('kind')} event")
        return
    collection = commit.get("collection")
    uri = f"at://{event.get('did')}/{collection}/{commit.get('rkey')}"
    if collection != POST:
        yield Found("record", uri, reason="not_a_post",
                    what=f"{collection} {commit.get('operation')}")
    elif commit.get("operation") == "delete":
        yield Found("post", uri, reason="deleted_post", what="jetstream delete")
    elif not isinstance(commit.get("record"), dict):
        yield Found("post", uri, reason="malformed_post", what="a commit without its record")
    else:
        yield Found("post", uri, record=commit["record"], author=event.get("did"))
