import { describe, expect, it } from 'vitest';
import { boundaryOf, parseMultipart } from './multipart.js';

const BOUNDARY = '----WebKitFormBoundaryAbc123';
const body = (...parts: string[]) =>
  Buffer.from(`${parts.map((p) => `--${BOUNDARY}\r\n${p}\r\n`).join('')}--${BOUNDARY}--\r\n`, 'latin1');
const type = `multipart/form-data; boundary=${BOUNDARY}`;

describe('parseMultipart', () => {
  it('reads text fields and one file as a browser sends them, bytes untouched', () => {
    const csv = 'email;first_name\r\nz\xe9@example.com;Z\xe9\r\n';
    const form = parseMultipart(
      body(
        'Content-Disposition: form-data; name="csrf"\r\n\r\ntoken-1',
        `Content-Disposition: form-data; name="file"; filename="people \\"2027\\".csv"\r\nContent-Type: text/csv\r\n\r\n${csv}`,
      ),
      type,
    );
    expect(form.fields).toEqual({ csrf: 'token-1' });
    expect(form.files.file?.filename).toBe('people "2027".csv');
    expect(form.files.file?.contentType).toBe('text/csv');
    expect(form.files.file?.data.equals(Buffer.from(csv, 'latin1'))).toBe(true);
  });

  it('keeps the first value of a repeated field, and an empty file', () => {
    const form = parseMultipart(
      body(
        'Content-Disposition: form-data; name="a"\r\n\r\none',
        'Content-Disposition: form-data; name="a"\r\n\r\ntwo',
        'Content-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n',
      ),
      type,
    );
    expect(form.fields.a).toBe('one');
    expect(form.files.file?.data.length).toBe(0);
  });

  it('refuses what is not a complete form with a 400', () => {
    for (const [raw, contentType] of [
      ['no boundary at all', type],
      [`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\ncut off`, type],
      [`--${BOUNDARY}\r\nX: y\r\n\r\nv\r\n--${BOUNDARY}--`, type],
      ['x', 'multipart/form-data'],
    ] as const) {
      expect(() => parseMultipart(Buffer.from(raw), contentType)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });

  it('finds quoted and unquoted boundaries only in multipart/form-data', () => {
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary=xyz')).toBe('xyz');
    expect(boundaryOf('text/plain; boundary=xyz')).toBeNull();
  });
});
