import { Type } from 'typebox';
import { SafeText } from '../../http/schemas.js';

export const MAX_AUDIO_BYTES = 5 * 1024 * 1024;

/** The answer to a recording upload is the user's play link, as the play-links API shows it. */
export { PlayLink } from '../play-links/schemas.js';

const AUDIO_DESCRIPTION =
  'The raw audio file: WebM, Ogg, WAV, MP3 or M4A, at most 5 MB. The format is read from the bytes, so any `audio/…` Content-Type (even `audio/*`) or `application/octet-stream` will do.';

/**
 * The media types the document lists for an upload. Generated clients send the first as the
 * Content-Type of whatever file they are given, so it is the one true of every file; the server
 * takes any `audio/…` type as well (even a literal `audio/*`) and reads the format from the bytes.
 */
export const AUDIO_MEDIA_TYPES = [
  'application/octet-stream',
  'audio/webm',
  'audio/ogg',
  'audio/wav',
  'audio/x-wav',
  'audio/mpeg',
  'audio/mp4',
  'audio/x-m4a',
] as const;

/**
 * The upload's body as the document shows it: raw bytes (`type: string, format: binary`, the form
 * generators turn into a Blob sent as it is) under each concrete media type, never JSON.
 */
export const AudioBody = {
  content: Object.fromEntries(
    AUDIO_MEDIA_TYPES.map((type) => [
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
