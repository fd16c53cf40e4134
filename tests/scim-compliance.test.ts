/**
 * A SCIM 2.0 compliance run written from RFC 7644: every endpoint, every error with its
 * `scimType` (§3.12), pagination boundaries (§3.4.2.4), filters (§3.4.2.2), attribute projection
 * (§3.4.2.5), meta and versions (§3.14), the media type (§3.1) and the token's reach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  ENTERPRISE,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  LIST_RESPONSE,
  newScimOrg,
  PATCH_OP,
  type ScimOrg,
  scim,
  userBody,
  USER_SCHEMA,
} from './helpers/scim.js';

let t: TestApp;
let org: ScimOrg;

beforeAll(async () => {
  t = await createTestApp();
  org = await newScimOrg(t);
});
afterAll(() => t.close());

const expectError = (
  res: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  scimType?: string,
) => {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/scim+json');
  const body = res.json() as Record<string, unknown>;
  expect(body.schemas).toEqual([ERROR_SCHEMA]);
  expect(body.status).toBe(String(status));
  expect(typeof body.detail).toBe('string');
  if (scimType === undefined) expect(body).not.toHaveProperty('scimType');
  else expect(body.scimType).toBe(scimType);
};

const createUser = async (userName: string, extra: Record<string, unknown> = {}, token = org.token) => {
  const res = await scim(t, token, 'POST', '/Users', userBody(userName, extra));
  expect(res.statusCode).toBe(201);
  return res.json<Record<string, unknown> & { id: string; meta: Record<string, string> }>();
};

describe('discovery (RFC 7644 §4)', () => {
  it('ServiceProviderConfig states patch, filter with maxResults 100, no bulk, no sort, ETags and the bearer scheme', async () => {
    const res = await scim(t, org.token, 'GET', '/ServiceProviderConfig');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/scim+json');
    const spc = res.json();
    expect(spc.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig']);
    expect(spc.patch.supported).toBe(true);
    expect(spc.filter).toEqual({ supported: true, maxResults: 100 });
    expect(spc.bulk.supported).toBe(false);
    expect(spc.sort.supported).toBe(false);
    expect(spc.etag.supported).toBe(true);
    expect(spc.authenticationSchemes[0].type).toBe('oauthbearertoken');
  });

  it('ResourceTypes lists User (with the enterprise extension) and Group, each readable by id', async () => {
    const list = (await scim(t, org.token, 'GET', '/ResourceTypes')).json();
    expect(list.schemas).toEqual([LIST_RESPONSE]);
    expect(list.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    expect(list.Resources[0].schemaExtensions).toEqual([{ schema: ENTERPRISE, required: false }]);
    const user = await scim(t, org.token, 'GET', '/ResourceTypes/User');
    expect(user.json().endpoint).toBe('/Users');
    expectError(await scim(t, org.token, 'GET', '/ResourceTypes/Printer'), 404);
  });

  it('Schemas describes the User, enterprise User and Group schemas', async () => {
    const list = (await scim(t, org.token, 'GET', '/Schemas')).json();
    expect(list.Resources.map((r: { id: string }) => r.id)).toEqual([USER_SCHEMA, ENTERPRISE, GROUP_SCHEMA]);
    const user = (await scim(t, org.token, 'GET', `/Schemas/${USER_SCHEMA}`)).json();
    expect(user.attributes.find((a: { name: string }) => a.name === 'userName')).toMatchObject({
      required: true,
      uniqueness: 'server',
    });
  });

  it('discovery needs the token too (documented choice)', async () => {
    expectError(await scim(t, null, 'GET', '/ServiceProviderConfig'), 401);
  });
});

describe('authentication', () => {
  it('refuses a missing, malformed, unknown or /v1 key with 401 and a Bearer challenge', async () => {
    for (const token of [null, 'nonsense', `vnscim_${'a'.repeat(44)}`, org.key]) {
      const res = await scim(t, token, 'GET', '/Users');
      expectError(res, 401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
    }
  });
});

describe('Users: create, read, replace, patch, delete (§3.3, §3.4.1, §3.5, §3.6)', () => {
  it('creates a User with meta, Location and a weak ETag, and reads it back', async () => {
    const res = await scim(t, org.token, 'POST', '/Users', {
      ...userBody('grace@example.edu', { externalId: 'hr-1', displayName: 'Grace Hopper' }),
      schemas: [USER_SCHEMA, ENTERPRISE],
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Computer Science' },
    });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(user.meta).toMatchObject({
      resourceType: 'User',
      version: 'W/"1"',
      location: `http://localhost:3000/scim/v2/Users/${user.id}`,
    });
    expect(res.headers.location).toBe(user.meta.location);
    expect(res.headers.etag).toBe('W/"1"');
    expect(user[ENTERPRISE]).toEqual({ employeeNumber: '701984', department: 'Computer Science' });
    const read = await scim(t, org.token, 'GET', `/Users/${user.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(user);
  });

  it('userName is unique per organisation regardless of case: 409 uniqueness', async () => {
    await createUser('unique@example.edu');
    expectError(await scim(t, org.token, 'POST', '/Users', userBody('UNIQUE@example.edu')), 409, 'uniqueness');
  });

  it('the same userName in another organisation is a different User', async () => {
    const other = await newScimOrg(t);
    expect((await scim(t, other.token, 'POST', '/Users', userBody('unique@example.edu'))).statusCode).toBe(201);
  });

  it('refuses bodies without userName, with wrong types, bad JSON, wrong schemas or media type', async () => {
    expectError(await scim(t, org.token, 'POST', '/Users', { schemas: [USER_SCHEMA] }), 400, 'invalidValue');
    expectError(await scim(t, org.token, 'POST', '/Users', userBody('x@example.edu', { active: 'maybe' })), 400, 'invalidValue');
    expectError(await scim(t, org.token, 'POST', '/Users', userBody('x@example.edu', { emails: 'x' })), 400, 'invalidValue');
    expectError(await scim(t, org.token, 'POST', '/Users', '{"userName":'), 400, 'invalidSyntax');
    expectError(await scim(t, org.token, 'POST', '/Users', [1, 2]), 400, 'invalidSyntax');
    expectError(
      await scim(t, org.token, 'POST', '/Users', { ...userBody('y@example.edu'), schemas: [GROUP_SCHEMA] }),
      400,
      'invalidSyntax',
    );
    const text = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectError(text, 415);
  });

  it('accepts application/json as well as application/scim+json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(userBody('json@example.edu')),
    });
    expect(res.statusCode).toBe(201);
  });

  it('a body over the app’s limit is 413 in SCIM’s body', async () => {
    const huge = userBody('huge@example.edu', { nickName: 'x'.repeat(t.config.jsonBodyLimit + 10) });
    expectError(await scim(t, org.token, 'POST', '/Users', huge), 413);
  });

  it('PUT replaces the User, bumps the version and honours If-Match (412 on a stale one)', async () => {
    const user = await createUser('put@example.edu');
    const res = await scim(
      t,
      org.token,
      'PUT',
      `/Users/${user.id}`,
      userBody('put@example.edu', { displayName: 'Put Person', active: false }),
      {
        'if-match': 'W/"1"',
      },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ displayName: 'Put Person', active: false, meta: { version: 'W/"2"' } });
    expectError(await scim(t, org.token, 'PUT', `/Users/${user.id}`, userBody('put@example.edu'), { 'if-match': 'W/"1"' }), 412);
    // Renaming onto another User's userName is a uniqueness conflict.
    await createUser('taken@example.edu');
    expectError(await scim(t, org.token, 'PUT', `/Users/${user.id}`, userBody('Taken@example.edu')), 409, 'uniqueness');
  });

  it('PATCH add/replace/remove with paths, value filters and no path', async () => {
    const user = await createUser('patch@example.edu', { externalId: 'p-1' });
    const res = await scim(t, org.token, 'PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'name.givenName', value: 'Augusta' },
        { op: 'add', path: 'title', value: 'Countess' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'augusta@example.edu' },
        { op: 'replace', value: { displayName: 'Augusta Ada King' } },
        { op: 'remove', path: 'externalId' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const patched = res.json();
    expect(patched.name.givenName).toBe('Augusta');
    expect(patched.title).toBe('Countess');
    expect(patched.emails[0].value).toBe('augusta@example.edu');
    expect(patched.displayName).toBe('Augusta Ada King');
    expect(patched).not.toHaveProperty('externalId');
    expect(patched.meta.version).toBe('W/"2"');
  });

  it('PATCH errors: invalidSyntax, noTarget, invalidPath, mutability, invalidValue', async () => {
    const user = await createUser('patch-errors@example.edu');
    const url = `/Users/${user.id}`;
    expectError(
      await scim(t, org.token, 'PATCH', url, { Operations: [{ op: 'add', path: 'title', value: 'x' }] }),
      400,
      'invalidSyntax',
    );
    expectError(await scim(t, org.token, 'PATCH', url, { schemas: [PATCH_OP], Operations: [] }), 400, 'invalidSyntax');
    expectError(
      await scim(t, org.token, 'PATCH', url, { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'title' }] }),
      400,
      'invalidSyntax',
    );
    expectError(await scim(t, org.token, 'PATCH', url, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }), 400, 'noTarget');
    expectError(
      await scim(t, org.token, 'PATCH', url, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: 'x' }] }),
      400,
      'mutability',
    );
    expectError(
      await scim(t, org.token, 'PATCH', url, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }],
      }),
      400,
      'invalidPath',
    );
    expectError(
      await scim(t, org.token, 'PATCH', url, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: 'perhaps' }],
      }),
      400,
      'invalidValue',
    );
    // Nothing was changed by the refused requests.
    expect((await scim(t, org.token, 'GET', url)).json().meta.version).toBe('W/"1"');
  });

  it('DELETE answers 204, then the User is 404 everywhere', async () => {
    const user = await createUser('gone@example.edu');
    const res = await scim(t, org.token, 'DELETE', `/Users/${user.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await scim(t, org.token, 'GET', `/Users/${user.id}`), 404);
    expectError(await scim(t, org.token, 'DELETE', `/Users/${user.id}`), 404);
    expectError(
      await scim(t, org.token, 'PATCH', `/Users/${user.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      404,
    );
  });

  it('another organisation’s token sees none of this organisation’s Users (404)', async () => {
    const user = await createUser('private@example.edu');
    const other = await newScimOrg(t);
    expectError(await scim(t, other.token, 'GET', `/Users/${user.id}`), 404);
    expectError(await scim(t, other.token, 'PUT', `/Users/${user.id}`, userBody('private@example.edu')), 404);
    expectError(await scim(t, other.token, 'DELETE', `/Users/${user.id}`), 404);
    const list = (await scim(t, other.token, 'GET', '/Users?filter=userName eq "private@example.edu"')).json();
    expect(list.totalResults).toBe(0);
  });
});

describe('Users: filters (§3.4.2.2)', () => {
  let ada: { id: string };
  let filters: ScimOrg;
  beforeAll(async () => {
    filters = await newScimOrg(t);
    const emails = [{ value: 'Ada.Work@Example.edu', primary: true }];
    ada = await createUser('ada@example.edu', { externalId: 'ext-ada', emails }, filters.token);
    await createUser('bob@example.edu', { externalId: 'ext-bob' }, filters.token);
  });
  const list = async (filter: string) => {
    const res = await scim(t, filters.token, 'GET', `/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.statusCode).toBe(200);
    return res.json<{ totalResults: number; Resources: { id: string; userName: string }[] }>();
  };

  it('userName eq is case-insensitive; externalId eq is exact', async () => {
    expect((await list('userName eq "ADA@example.edu"')).Resources.map((r) => r.id)).toEqual([ada.id]);
    expect((await list('externalId eq "ext-ada"')).totalResults).toBe(1);
    expect((await list('externalId eq "EXT-ADA"')).totalResults).toBe(0);
  });

  it('emails[value eq …] and emails eq find the primary e-mail', async () => {
    expect((await list('emails[value eq "ada.work@example.edu"]')).totalResults).toBe(1);
    expect((await list('emails eq "ADA.WORK@example.edu"')).totalResults).toBe(1);
  });

  it('and / or combine conditions', async () => {
    expect((await list('userName eq "ada@example.edu" or userName eq "bob@example.edu"')).totalResults).toBe(2);
    expect((await list('userName eq "ada@example.edu" and externalId eq "ext-bob"')).totalResults).toBe(0);
  });

  it('unsupported operators, attributes and malformed filters are 400 invalidFilter', async () => {
    for (const filter of [
      'userName co "ada"',
      'title eq "x"',
      'userName eq',
      'not (userName eq "x")',
      'userName pr',
      'active eq true',
    ]) {
      expectError(await scim(t, filters.token, 'GET', `/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    }
  });
});

describe('Users: pagination (§3.4.2.4)', () => {
  let pages: ScimOrg;
  beforeAll(async () => {
    pages = await newScimOrg(t);
    for (let i = 1; i <= 5; i++) await scim(t, pages.token, 'POST', '/Users', userBody(`page${i}@example.edu`));
  });
  const page = async (query: string) => (await scim(t, pages.token, 'GET', `/Users?${query}`)).json();

  it('is 1-based with totalResults, startIndex and itemsPerPage', async () => {
    const first = await page('startIndex=1&count=2');
    expect(first).toMatchObject({ schemas: [LIST_RESPONSE], totalResults: 5, startIndex: 1, itemsPerPage: 2 });
    // Pages follow one stable order: walking them yields every User exactly once.
    const second = await page('startIndex=3&count=2');
    const last = await page('startIndex=5&count=2');
    const names = [...first.Resources, ...second.Resources, ...last.Resources].map((r: { userName: string }) => r.userName);
    expect(names.sort()).toEqual([1, 2, 3, 4, 5].map((i) => `page${i}@example.edu`));
    expect(last).toMatchObject({ totalResults: 5, startIndex: 5, itemsPerPage: 1 });
    expect((await page('startIndex=6&count=2')).itemsPerPage).toBe(0);
  });

  it('startIndex below 1 means 1, count 0 gives only the total, a negative count means 0, count is capped at 100', async () => {
    expect((await page('startIndex=0&count=1')).startIndex).toBe(1);
    expect(await page('count=0')).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect((await page('count=-3')).itemsPerPage).toBe(0);
    expect((await page('count=1000')).itemsPerPage).toBe(5);
  });

  it('a non-integer startIndex or count is 400 invalidValue', async () => {
    const res = await scim(t, pages.token, 'GET', '/Users?count=ten');
    expectError(res, 400, 'invalidValue');
  });
});

describe('Groups (a Group is a collection)', () => {
  it('create with members, read, excludedAttributes=members, filter, rename, patch members, delete', async () => {
    const a = await createUser('member-a@example.edu');
    const b = await createUser('member-b@example.edu');
    const res = await scim(t, org.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Physics 101',
      members: [{ value: a.id }],
    });
    expect(res.statusCode).toBe(201);
    const group = res.json();
    expect(group.meta).toMatchObject({ resourceType: 'Group', version: 'W/"1"' });
    expect(group.members).toEqual([expect.objectContaining({ value: a.id, display: 'member-a@example.edu' })]);

    const slim = (await scim(t, org.token, 'GET', `/Groups/${group.id}?excludedAttributes=members`)).json();
    expect(slim).not.toHaveProperty('members');
    expect(slim.displayName).toBe('Physics 101');
    const only = (await scim(t, org.token, 'GET', `/Groups/${group.id}?attributes=displayName`)).json();
    expect(Object.keys(only).sort()).toEqual(['displayName', 'id', 'meta', 'schemas']);

    const found = (
      await scim(
        t,
        org.token,
        'GET',
        `/Groups?filter=${encodeURIComponent('displayName eq "physics 101"')}&excludedAttributes=members`,
      )
    ).json();
    expect(found.totalResults).toBe(1);
    expect(found.Resources[0]).not.toHaveProperty('members');
    expectError(await scim(t, org.token, 'GET', `/Groups?filter=${encodeURIComponent('members eq "x"')}`), 400, 'invalidFilter');

    expectError(
      await scim(t, org.token, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'PHYSICS 101' }),
      409,
      'uniqueness',
    );
    expectError(await scim(t, org.token, 'POST', '/Groups', { schemas: [GROUP_SCHEMA] }), 400, 'invalidValue');
    expectError(
      await scim(t, org.token, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'X', members: [{ value: 'nobody' }] }),
      400,
      'invalidValue',
    );

    const patched = await scim(t, org.token, 'PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'displayName', value: 'Physics 102' },
        { op: 'add', path: 'members', value: [{ value: b.id }] },
        { op: 'remove', path: `members[value eq "${a.id}"]` },
      ],
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().displayName).toBe('Physics 102');
    expect(patched.json().members.map((m: { value: string }) => m.value)).toEqual([b.id]);

    const put = await scim(t, org.token, 'PUT', `/Groups/${group.id}`, {
      schemas: [GROUP_SCHEMA],
      displayName: 'Physics 103',
      members: [],
    });
    expect(put.json()).toMatchObject({ displayName: 'Physics 103', members: [], meta: { version: 'W/"3"' } });

    const other = await newScimOrg(t);
    expectError(await scim(t, other.token, 'GET', `/Groups/${group.id}`), 404);

    expect((await scim(t, org.token, 'DELETE', `/Groups/${group.id}`)).statusCode).toBe(204);
    expectError(await scim(t, org.token, 'GET', `/Groups/${group.id}`), 404);
  });
});

describe('conflicts with the people of a collection', () => {
  it('a User update whose e-mail another person of its collection has is 409 uniqueness, and changes nothing', async () => {
    const a = await createUser('first@example.edu');
    const b = await createUser('second@example.edu');
    const group = await scim(t, org.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Conflicts',
      members: [{ value: a.id }, { value: b.id }],
    });
    expect(group.statusCode).toBe(201);
    const res = await scim(t, org.token, 'PATCH', `/Users/${a.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'second@example.edu' }],
    });
    expectError(res, 409, 'uniqueness');
    const after = (await scim(t, org.token, 'GET', `/Users/${a.id}`)).json();
    expect(after.meta.version).toBe('W/"1"');
    expect(after.emails[0].value).toBe('first@example.edu');
  });
});

describe('rate limits (as API keys)', () => {
  it('answers 429 with Retry-After in SCIM’s body once a token spends its minute', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const small = await newScimOrg(limited);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await scim(limited, small.token, 'GET', '/Users'));
      expect(answers.slice(0, 3).map((r) => r.statusCode)).toEqual([200, 200, 200]);
      const refused = answers[3] as Awaited<ReturnType<typeof scim>>;
      expectError(refused, 429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('unsupported endpoints and unknown routes', () => {
  it('Bulk and /Me are 501, unknown paths 404, all in SCIM’s body', async () => {
    expectError(
      await scim(t, org.token, 'POST', '/Bulk', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
        Operations: [],
      }),
      501,
    );
    expectError(await scim(t, org.token, 'GET', '/Me'), 501);
    expectError(await scim(t, org.token, 'GET', '/Printers'), 404);
  });
});
