/**
 * The API's rate-limit fields (IETF draft-ietf-httpapi-ratelimit-headers), read from any answer:
 *
 *   RateLimit-Policy: "v1";q=600;w=60     RateLimit: "v1";r=599;t=42
 *
 * Both are structured-field lists (RFC 9651) of a quoted policy name with parameters; only the
 * parameters read here are kept, so fields the server may add later do not break the parse.
 */

/** Where the client stands in one limit of the API. */
export interface RateLimitInfo {
  /** The policy's name (`"v1"` for the REST API). */
  policy: string;
  /** Requests allowed per window (`q`), when `RateLimit-Policy` says. */
  limit: number | undefined;
  /** The window in seconds (`w`), when `RateLimit-Policy` says. */
  windowSeconds: number | undefined;
  /** Requests left in the current window (`r`). */
  remaining: number | undefined;
  /** Seconds until the window ends (`t`). */
  resetSeconds: number | undefined;
}

// One list member: a quoted name, then `;key=value` parameters (integers, tokens or strings).
const MEMBER = /^\s*"((?:[^"\\]|\\.)*)"((?:\s*;\s*[a-z*][a-z0-9_.*-]*(?:=(?:"(?:[^"\\]|\\.)*"|[^;,"]*))?)*)\s*(?:,|$)/;
const PARAMETER = /;\s*([a-z*][a-z0-9_.*-]*)(?:=("(?:[^"\\]|\\.)*"|[^;,"]*))?/g;

/** The members of a list field as `name → integer parameters`; an unreadable remainder is ignored. */
function readList(value: string | null): Map<string, Map<string, number>> {
  const members = new Map<string, Map<string, number>>();
  let rest = value ?? '';
  for (let match = MEMBER.exec(rest); match && rest.trim() !== ''; match = MEMBER.exec(rest)) {
    const parameters = new Map<string, number>();
    for (const [, key, raw] of (match[2] ?? '').matchAll(PARAMETER)) {
      const number = Number(raw?.trim());
      if (key && raw !== undefined && /^-?\d+$/.test(raw.trim()) && Number.isSafeInteger(number)) parameters.set(key, number);
    }
    members.set((match[1] ?? '').replace(/\\(.)/g, '$1'), parameters);
    rest = rest.slice(match[0].length);
  }
  return members;
}

/** Each limit named in `RateLimit` (with its `RateLimit-Policy` when sent); empty when none. */
export function parseRateLimits(headers: Headers): RateLimitInfo[] {
  const policies = readList(headers.get('ratelimit-policy'));
  return [...readList(headers.get('ratelimit'))].map(([policy, current]) => ({
    policy,
    limit: policies.get(policy)?.get('q'),
    windowSeconds: policies.get(policy)?.get('w'),
    remaining: current.get('r'),
    resetSeconds: current.get('t'),
  }));
}
