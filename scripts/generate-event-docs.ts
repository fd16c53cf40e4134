/**
 * `npm run docs:events`: writes docs/events.md from the event catalog
 * (src/features/webhooks/event-catalog.ts), the source `GET /v1/event-types` and the OpenAPI
 * `webhooks` object are built from. Formatted with the repository's prettier settings, so the
 * committed file passes `npm run lint` and tests/event-catalog.test.ts can compare it byte for
 * byte with a fresh generation: the page cannot drift from what the service sends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';
import { eventTypes } from '../src/features/webhooks/event-catalog.js';

const root = fileURLToPath(new URL('..', import.meta.url));
export const eventDocsFile = path.join(root, 'docs', 'events.md');

const INTRO = `# Event types

Every event type a webhook receives, with the JSON Schema (2020-12) of its body and an example.
The same list is served, for programs, by the API (with your API key, like the rest of \`/v1\`)
and is the \`webhooks\` object of the OpenAPI document (\`/v1/openapi.json\`), so receivers and
their types can be generated from either:

\`\`\`sh
curl -fsS -H "Authorization: Bearer $API_KEY" http://localhost:3000/v1/event-types
\`\`\`

The answer is \`{"data": [{"name", "description", "schema", "example"}, …]}\`, one entry per
type below. The schemas describe the full payload, what a webhook receives by default; a webhook
set to thin payloads receives ids and the event type only, and fetches the object with its API
key. How bodies are signed, retried and delivered: [webhooks](webhooks.md).
`;

const json = (value: unknown) => ['```json', JSON.stringify(value, null, 2), '```'].join('\n');

/** The text of docs/events.md for the current catalog. */
export async function generateEventDocs(): Promise<string> {
  const types = eventTypes();
  const sections = types.map(({ name, description, schema, example }) =>
    [`## \`${name}\``, `${description}.`, 'Example:', json(example), 'Schema:', json(schema)].join('\n\n'),
  );
  const index = types.map(({ name, description }) => `- [\`${name}\`](#${name.replace(/\./g, '')}): ${description}`);
  const markdown = [INTRO, index.join('\n'), ...sections].join('\n\n') + '\n';
  const options = await prettier.resolveConfig(eventDocsFile);
  return prettier.format(markdown, { ...options, filepath: eventDocsFile });
}

async function main(): Promise<void> {
  fs.writeFileSync(eventDocsFile, await generateEventDocs());
  console.log(`wrote ${path.relative(root, eventDocsFile)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
