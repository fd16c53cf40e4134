import { type ApiClient, callOptions, type RequestOptions, unwrap } from '../request.js';
import type { InvitationsParams, InvitationsResult } from '../types.js';

/** `POST /v1/collections/{collection_id}/invitations`: e-mail people their record links. */
export class Invitations {
  constructor(private readonly api: ApiClient) {}

  /** `{ user_ids: [...] }` or `{ filter: 'not_recorded' }`; `resend: true` includes people invited in the last 24 hours. */
  send(collectionId: string, params: InvitationsParams, options?: RequestOptions): Promise<InvitationsResult> {
    const path = { collection_id: collectionId };
    return unwrap(
      this.api.POST('/v1/collections/{collection_id}/invitations', { params: { path }, body: params, ...callOptions(options) }),
    );
  }
}
