"""One parsed lxml tree per page, shared by the dating and extraction steps."""

from __future__ import annotations

import re
import threading

from lxml import etree
from lxml import html as lxml_html

XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)


def _parser() -> lxml_html.HTMLParser:
    """lxml.html's parser with its per-element Python class lookup replaced by a C-level one.

    The default lookup runs Python code for every element proxy lxml creates (it picks form
    and input classes by tag), and trafilatura creates millions: 6% of extraction time. Every
    element is a plain HtmlElement here, which has all that the dating and extraction code use
    (text_content, xpath, drop_tree); the outputs are identical on the benchmark pages.
    """
    parser = lxml_html.HTMLParser()
    parser.set_element_class_lookup(etree.ElementDefaultClassLookup(
        element=lxml_html.HtmlElement, comment=lxml_html.HtmlComment,
        pi=lxml_html.HtmlProcessingInstruction, entity=lxml_html.HtmlEntity))
    return parser


_local = threading.local()  # lxml parsers must not be shared between threads


def parse_html(body: str | bytes):
    """An lxml tree of a page (raises lxml's ParserError on an empty document)."""
    if isinstance(body, str):
        # lxml refuses text that still declares a byte encoding (XHTML pages); it is decoded.
        body = XML_DECLARATION.sub("", body, count=1)
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = _parser()
    return lxml_html.document_fromstring(body, parser=parser)
