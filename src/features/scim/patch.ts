/**
 * PATCH (RFC 7644 §3.5.2) through scim-patch, with what Entra ID and Okta actually send: `op`
 * in any case ("Replace"), value-path filters (`emails[type eq "work"].value`), a `value`
 * object without `path` whose keys may be dotted (`name.givenName`). The library's errors map
 * to SCIM's error types; `id` and `meta` are read-only (`mutability`).
 */
import {
  InvalidScimPatchOp,
  NoPathInScimPatchOp,
  NoTarget,
  type ScimPatchOperation,
  type ScimResource,
  ScimError,
  scimPatch,
} from 'scim-patch';
import { invalidPath, invalidSyntax, invalidValue, mutability, noTarget } from './errors.js';
import { isObject, type Json, PATCH_OP_SCHEMA } from './resources.js';

/** More operations than this in one request are refused (`tooMany` is for filters; this is `invalidValue`). */
const MAX_OPERATIONS = 1000;
const READ_ONLY = /^(id|meta)(\.|$|\[)/i;

function operationsOf(body: unknown): ScimPatchOperation[] {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object.');
  if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_OP_SCHEMA)) {
    throw invalidSyntax(`A PATCH body must list "${PATCH_OP_SCHEMA}" in "schemas".`);
  }
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0) throw invalidSyntax('"Operations" must be a non-empty array.');
  if (operations.length > MAX_OPERATIONS) throw invalidValue(`At most ${MAX_OPERATIONS} operations per request.`);
  return operations.map((operation: unknown) => {
    if (!isObject(operation) || typeof operation.op !== 'string') throw invalidSyntax('Each operation needs an "op".');
    const op = operation.op.toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax(`Unknown op "${operation.op}".`);
    if (operation.path !== undefined && typeof operation.path !== 'string') throw invalidPath('"path" must be a string.');
    const path = operation.path;
    if (op === 'remove' && (path === undefined || path === '')) throw noTarget('A remove operation needs a "path".');
    if (op !== 'remove' && !('value' in operation)) throw invalidSyntax(`The ${op} operation needs a "value".`);
    if (path !== undefined && READ_ONLY.test(path)) throw mutability(`"${path}" is read-only.`);
    if (path === undefined && isObject(operation.value)) {
      const readOnly = Object.keys(operation.value).find((key) => READ_ONLY.test(key));
      if (readOnly) throw mutability(`"${readOnly}" is read-only.`);
    }
    return { ...operation, op, ...(path === undefined ? {} : { path }) } as ScimPatchOperation;
  });
}

/** Splits `{"name.givenName": "x"}` into `{"name": {"givenName": "x"}}` (Entra sends the former). */
function expandDottedKeys(operations: ScimPatchOperation[]): ScimPatchOperation[] {
  return operations.map((operation) => {
    if (operation.op === 'remove' || operation.path !== undefined || !isObject(operation.value)) return operation;
    const value: Json = {};
    for (const [key, inner] of Object.entries(operation.value)) {
      const dot = key.startsWith('urn:') ? -1 : key.indexOf('.');
      if (dot < 0) value[key] = inner;
      else {
        const head = key.slice(0, dot);
        value[head] = { ...(isObject(value[head]) ? value[head] : {}), [key.slice(dot + 1)]: inner };
      }
    }
    return { ...operation, value };
  });
}

/** The resource with the body's operations applied (a copy). */
export function applyPatch(resource: Json, body: unknown): Json {
  const operations = expandDottedKeys(operationsOf(body));
  try {
    return scimPatch<ScimResource & Json>(resource as ScimResource & Json, operations, {
      mutateDocument: false,
      treatMissingAsAdd: true,
    });
  } catch (error) {
    if (error instanceof NoTarget) throw noTarget(error.message);
    if (error instanceof NoPathInScimPatchOp) throw noTarget(error.message);
    if (error instanceof InvalidScimPatchOp) throw invalidPath(error.message);
    if (error instanceof ScimError) throw invalidValue(error.message);
    // The library walks paths it cannot resolve into type errors: the path is at fault, not us.
    if (error instanceof TypeError) throw invalidPath('The "path" does not name an attribute of this resource.');
    throw error;
  }
}
