/**
 * Cursor pagination. Every list answer of the API is `{data, has_more, next_cursor}`; a
 * `Paginator` fetches nothing until it is used, then follows `next_cursor` page by page:
 *
 *   for await (const collection of client.collections.list()) { … }      // every item
 *   const first = await client.collections.list({ limit: 10 }).page();   // one page
 *   for await (const page of client.collections.list().pages()) { … }    // page by page
 */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Fetches the page that starts at `cursor` (undefined: the first page, or the caller's own cursor). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

export class Paginator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly startCursor?: string,
  ) {}

  /** The first page only (from the `cursor` given to `list`, if any). */
  page(): Promise<Page<T>> {
    return this.fetchPage(this.startCursor);
  }

  /** Every page, in order, until `has_more` is false. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page in one array; for lists known to be small. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
