import { Paginator } from '../pagination.js';
import { type ApiClient, callOptions, type RequestOptions, unwrap } from '../request.js';
import type { Erasure, ErasureListParams } from '../types.js';

/** `GET /v1/erasures`: the record, free of personal data, of every erasure. */
export class Erasures {
  constructor(private readonly api: ApiClient) {}

  list(params: ErasureListParams = {}, options?: RequestOptions): Paginator<Erasure> {
    return new Paginator(
      (cursor) => unwrap(this.api.GET('/v1/erasures', { params: { query: { ...params, cursor } }, ...callOptions(options) })),
      params.cursor,
    );
  }
}
