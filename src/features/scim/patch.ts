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

function operationsOf(body: unknown, currentId: string): ScimPatchOperation[] {
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
    let value = operation.value;
    if (path === undefined && isObject(value)) {
      // Okta repeats the resource's own id in a path-less replace: the same id changes nothing.
      const rest: Json =
        value.id === currentId ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'id')) : value;
      value = rest;
      const readOnly = Object.keys(rest).find((key) => READ_ONLY.test(key));
      if (readOnly) throw mutability(`"${readOnly}" is read-only.`);
    }
    return {
      ...operation,
      op,
      ...(path === undefined ? {} : { path }),
      ...(op === 'remove' && !('value' in operation) ? {} : { value }),
    } as ScimPatchOperation;
  });
}

/**
 * Rewrites two shapes Entra ID sends into plain RFC operations: a path-less value whose keys are
 * paths (`{"name.givenName": "x"}`) becomes one operation per key, so sibling sub-attributes are
 * left unchanged (RFC 7644 §3.5.2.3); a remove of `members` with a list of values becomes one
 * remove per member (`members[value eq "…"]`).
 */
function entraShapes(operations: ScimPatchOperation[]): ScimPatchOperation[] {
  return operations.flatMap((operation): ScimPatchOperation[] => {
    if (operation.op === 'remove') {
      const values = (operation as { value?: unknown }).value;
      if (!Array.isArray(values) || /[[\]]/.test(operation.path)) return [operation];
      return values.map((item) => {
        if (!isObject(item) || typeof item.value !== 'string')
          throw invalidValue('Each value to remove must be an object with a "value".');
        return { op: 'remove', path: `${operation.path}[value eq ${JSON.stringify(item.value)}]` };
      });
    }
    if (operation.path !== undefined || !isObject(operation.value)) return [operation];
    const plain: Json = {};
    const split: ScimPatchOperation[] = [];
    for (const [key, value] of Object.entries(operation.value)) {
      if (!key.startsWith('urn:') && key.includes('.')) split.push({ op: operation.op, path: key, value });
      else plain[key] = value;
    }
    return Object.keys(plain).length > 0 ? [{ ...operation, value: plain }, ...split] : split;
  });
}

/** The resource (whose id is `currentId`) with the body's operations applied (a copy). */
export function applyPatch(resource: Json, currentId: string, body: unknown): Json {
  const operations = entraShapes(operationsOf(body, currentId));
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
