import { type ApiClient, asIs, callOptions, type RequestOptions, unwrap } from '../request.js';
import type { DeletedRecording, PlayLink } from '../types.js';
import { contentTypeOf, type FileSource, replayableBody } from '../uploads.js';

export interface UploadOptions extends RequestOptions {
  /** e.g. `audio/webm`, `audio/wav`, `audio/mpeg`. Default: a Blob's own type, else `application/octet-stream` (the API reads the format from the bytes either way). */
  contentType?: string;
}

/** `/v1/collections/{collection_id}/users/{user_id}/recording`: a person's recorded name. */
export class Recordings {
  constructor(private readonly api: ApiClient) {}

  /**
   * Uploads (or replaces) the recording: WebM, Ogg, WAV, MP3 or M4A, at most 5 MB. The API trims
   * and normalises it and answers the play link once it is published.
   */
  async upload(collectionId: string, userId: string, audio: FileSource, options: UploadOptions = {}): Promise<PlayLink> {
    const { contentType, ...requestOptions } = options;
    const { headers, ...rest } = callOptions(requestOptions);
    return unwrap(
      this.api.PUT('/v1/collections/{collection_id}/users/{user_id}/recording', {
        params: { path: { collection_id: collectionId, user_id: userId } },
        body: (await replayableBody(audio)) as never,
        bodySerializer: asIs,
        headers: { ...headers, 'Content-Type': contentTypeOf(audio, contentType, 'application/octet-stream') },
        ...rest,
      }),
    );
  }

  delete(collectionId: string, userId: string, options?: RequestOptions): Promise<DeletedRecording> {
    const path = { collection_id: collectionId, user_id: userId };
    return unwrap(
      this.api.DELETE('/v1/collections/{collection_id}/users/{user_id}/recording', { params: { path }, ...callOptions(options) }),
    );
  }
}
