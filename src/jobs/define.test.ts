import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineJob, handleJob, MalformedJobPayloadError } from './define.js';

const job = defineJob({
  name: 'test.decode',
  payload: Type.Object({ id: Type.String({ minLength: 1 }), count: Type.Optional(Type.Integer()) }),
  maxAttempts: 3,
  backoff: (attempt) => attempt * 100,
});

describe('defineJob', () => {
  it('decodes a stored payload that matches the schema', () => {
    expect(job.decode('{"id":"a","count":2}')).toEqual({ id: 'a', count: 2 });
  });

  it('refuses a payload that is not JSON', () => {
    expect(() => job.decode('{"id":')).toThrow(MalformedJobPayloadError);
    expect(() => job.decode('{"id":')).toThrow(/^payload of test\.decode is not JSON/);
  });

  it('refuses JSON of the wrong shape, naming the fields', () => {
    expect(() => job.decode('{"id":"a","count":1.5}')).toThrow(/does not match its schema: \/count must be integer/);
    expect(() => job.decode('[]')).toThrow(MalformedJobPayloadError);
    expect(() => job.decode('null')).toThrow(MalformedJobPayloadError);
  });

  it('runs the bound handler only with a valid payload', async () => {
    const seen: string[] = [];
    const handler = handleJob(job, async (payload) => void seen.push(payload.id));
    await handler.run('{"id":"x"}', { attempt: 1, jobId: 'j1' });
    await expect(handler.run('{"id":""}', { attempt: 1, jobId: 'j2' })).rejects.toBeInstanceOf(MalformedJobPayloadError);
    expect(seen).toEqual(['x']);
  });
});
