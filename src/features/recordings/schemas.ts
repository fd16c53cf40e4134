import { Type } from 'typebox';
import { SafeText } from '../../http/schemas.js';

export const MAX_AUDIO_BYTES = 5 * 1024 * 1024;

/** The answer to a recording upload is the user's play link, as the play-links API shows it. */
export { PlayLink } from '../play-links/schemas.js';

const AUDIO_DESCRIPTION = 'The raw audio file: WebM, Ogg, WAV, MP3 or M4A, at most 5 MB. The format is read from the bytes.';

/**
 * The upload's body as the document shows it: raw bytes under any `audio/*` type or
 * `application/octet-stream` (what generated clients send for a Blob), never JSON.
 */
export const AudioBody = {
  content: Object.fromEntries(
    ['audio/*', 'application/octet-stream'].map((type) => [
      type,
      { schema: { type: 'string', format: 'binary', contentMediaType: type, description: AUDIO_DESCRIPTION } },
    ]),
  ),
  required: true,
};

export const UserParams = Type.Object({
  collection_id: Type.String({ maxLength: 64 }),
  user_id: Type.String({ maxLength: 64 }),
});

export const DeletedRecording = Type.Object(
  { deleted: Type.Literal(true), user_id: Type.String() },
  { title: 'DeletedRecording' },
);

export const RecorderParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
export const RecorderUploadQuery = Type.Object(
  { phonetic_spelling: Type.Optional(SafeText({ maxLength: 100 })) },
  { additionalProperties: false },
);
