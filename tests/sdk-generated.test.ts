/**
 * The SDK's generated types (packages/sdk/src/generated/openapi.ts) match the OpenAPI document the
 * current route schemas produce: a route changed without regenerating fails here.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTypesFile, generateSdkTypes } from '../scripts/generate-sdk.js';

describe('SDK generated types', () => {
  it('are up to date with the OpenAPI document', async () => {
    const fresh = await generateSdkTypes();
    const committed = fs.existsSync(generatedTypesFile) ? fs.readFileSync(generatedTypesFile, 'utf8') : '';
    // Not toBe: a diff of thousands of lines says less than the fix.
    if (committed !== fresh) {
      expect.fail('packages/sdk/src/generated/openapi.ts is out of date with the route schemas: run npm run sdk:generate');
    }
  });
});
