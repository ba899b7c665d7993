import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonOutput } from '../../src/commands/api-output.js';
import { ApiError } from '../../src/remote/api-error.js';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { out: new JsonOutput(stream), text: () => text };
}

const failure = new ApiError('NETWORK', 'GET /{owner}/documents: socket hang up', {
  route: 'GET /{owner}/documents',
});

describe('JsonOutput', () => {
  it('ends a list cut off midway with the error, so what came is one JSON array that says so', () => {
    const { out, text } = capture();
    out.item({ id: '1' });
    out.item({ id: '2' });
    out.failed(failure);
    expect(JSON.parse(text())).toEqual([
      { id: '1' },
      { id: '2' },
      {
        error: {
          code: 'NETWORK',
          route: 'GET /{owner}/documents',
          message: 'GET /{owner}/documents: socket hang up',
        },
      },
    ]);
  });

  it('writes an error object when the call failed before any output', () => {
    const { out, text } = capture();
    out.failed(failure);
    expect(JSON.parse(text())).toEqual({
      error: {
        code: 'NETWORK',
        route: 'GET /{owner}/documents',
        message: 'GET /{owner}/documents: socket hang up',
      },
    });
  });

  it('writes an empty list as []', () => {
    const { out, text } = capture();
    out.endList();
    expect(JSON.parse(text())).toEqual([]);
  });
});
