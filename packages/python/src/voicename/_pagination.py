"""Cursor pagination. Every list answer of the API is `{data, has_more, next_cursor}`; a
`Paginator` fetches nothing until it is used, then follows `next_cursor` page by page:

    for collection in client.collections.list():          # every item
    first = client.collections.list({"limit": 10}).page()  # one page
    for page in client.collections.list().pages():         # page by page
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list."""

    data: list[T]
    has_more: bool
    next_cursor: str | None

    @staticmethod
    def of(answer: Any) -> Page[T]:
        return Page(cast("list[T]", answer["data"]), bool(answer["has_more"]), answer.get("next_cursor"))


class Paginator(Generic[T]):
    """Iterating it yields every item of every page; `page()` fetches one page, `pages()` each page."""

    def __init__(self, fetch_page: Callable[[str | None], Page[T]], start_cursor: str | None = None) -> None:
        self._fetch_page = fetch_page
        self._start_cursor = start_cursor

    def page(self) -> Page[T]:
        """The first page only (from the `cursor` given to `list`, if any)."""
        return self._fetch_page(self._start_cursor)

    def pages(self) -> Iterator[Page[T]]:
        """Every page, in order, until `has_more` is false."""
        cursor = self._start_cursor
        while True:
            page = self._fetch_page(cursor)
            yield page
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data

    def to_list(self) -> list[T]:
        """Every item of every page in one list; for lists known to be small."""
        return list(self)
