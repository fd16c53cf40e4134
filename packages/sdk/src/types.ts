/**
 * Names for the API's objects, read from the generated `paths` (keyed by URL, which stays stable
 * when the document's schema names change): `Collection` is what `GET /v1/collections/{id}` answers.
 */
import type { paths } from './generated/openapi.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
type Success<R> = R extends { 200: infer S } ? S : R extends { 201: infer S } ? S : R extends { 202: infer S } ? S : never;

/** The JSON a successful call answers. */
export type ResponseOf<P extends keyof paths, M extends Method> = Json<Success<Operation<P, M>['responses']>>;
/** The JSON body a call takes. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters a call takes. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type Item<L> = L extends { data: (infer I)[] } ? I : never;

export type Collection = ResponseOf<'/v1/collections/{collection_id}', 'get'>;
export type CollectionCreateParams = BodyOf<'/v1/collections', 'post'>;
export type CollectionUpdateParams = BodyOf<'/v1/collections/{collection_id}', 'patch'>;
export type CollectionListParams = QueryOf<'/v1/collections', 'get'>;
export type DeletedCollection = ResponseOf<'/v1/collections/{collection_id}', 'delete'>;
export type PlayLinkSettings = ResponseOf<'/v1/collections/{collection_id}/play-link-settings', 'get'>;
export type PlayLinkSettingsUpdateParams = BodyOf<'/v1/collections/{collection_id}/play-link-settings', 'patch'>;

export type User = ResponseOf<'/v1/collections/{collection_id}/users/{user_id}', 'get'>;
export type UserCreateParams = BodyOf<'/v1/collections/{collection_id}/users', 'post'>;
export type UserUpdateParams = BodyOf<'/v1/collections/{collection_id}/users/{user_id}', 'patch'>;
export type UserListParams = QueryOf<'/v1/collections/{collection_id}/users', 'get'>;
export type UserBatchParams = BodyOf<'/v1/collections/{collection_id}/users/batch', 'post'>;
export type UserBatchResult = ResponseOf<'/v1/collections/{collection_id}/users/batch', 'post'>;
export type UserImportParams = QueryOf<'/v1/collections/{collection_id}/users/import', 'post'>;
export type ImportReport = ResponseOf<'/v1/collections/{collection_id}/users/import', 'post'>;
export type DeletedUser = ResponseOf<'/v1/collections/{collection_id}/users/{user_id}', 'delete'>;
export type ReviewParams = BodyOf<'/v1/collections/{collection_id}/users/{user_id}/review', 'post'>;

export type PlayLink = ResponseOf<'/v1/collections/{collection_id}/users/{user_id}/play-link', 'get'>;
export type PlayLinkBatch = ResponseOf<'/v1/play-links/batch', 'get'>;
export type PlayLinkBatchItem = Item<PlayLinkBatch>;
export type DeletedRecording = ResponseOf<'/v1/collections/{collection_id}/users/{user_id}/recording', 'delete'>;

export type Webhook = ResponseOf<'/v1/webhooks/{webhook_id}', 'get'>;
export type WebhookWithSecret = ResponseOf<'/v1/webhooks', 'post'>;
export type WebhookCreateParams = BodyOf<'/v1/webhooks', 'post'>;
export type WebhookUpdateParams = BodyOf<'/v1/webhooks/{webhook_id}', 'patch'>;
export type WebhookListParams = QueryOf<'/v1/webhooks', 'get'>;
export type DeletedWebhook = ResponseOf<'/v1/webhooks/{webhook_id}', 'delete'>;
export type WebhookDelivery = ResponseOf<'/v1/webhooks/{webhook_id}/test', 'post'>;
/** An event type of the catalog: its name, description, JSON Schema (2020-12) and an example body. */
export type EventType = Item<ResponseOf<'/v1/event-types', 'get'>>;
export type WebhookMessageListParams = QueryOf<'/v1/webhooks/{webhook_id}/messages', 'get'>;
export type WebhookRecoverParams = BodyOf<'/v1/webhooks/{webhook_id}/recover', 'post'>;
export type WebhookRecoverResult = ResponseOf<'/v1/webhooks/{webhook_id}/recover', 'post'>;

export type InvitationsParams = BodyOf<'/v1/collections/{collection_id}/invitations', 'post'>;
export type InvitationsResult = ResponseOf<'/v1/collections/{collection_id}/invitations', 'post'>;

export type Erasure = Item<ResponseOf<'/v1/erasures', 'get'>>;
export type ErasureListParams = QueryOf<'/v1/erasures', 'get'>;
