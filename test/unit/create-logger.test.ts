import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/create-logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('never writes a token or secret, at any depth a log object is likely to have', () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination, pretty: false });
    const token = 'tok-3f9a1c7e-very-secret';
    log.info({ access_token: token, refresh_token: token }, 'token response');
    log.info(
      { config: { service: { clientSecret: token }, webhook: { secret: token } } },
      'config',
    );
    log.info({ request: { headers: { authorization: `Bearer ${token}` } } }, 'request');
    log.child({ cycle: 1 }).warn({ auth: { refreshToken: token, accessToken: token } }, 'child');

    const output = lines.join('');
    expect(lines).toHaveLength(4);
    expect(output).not.toContain(token);
    expect(output).toContain('[redacted]');
  });

  it('keeps the fields an operator needs, error codes included', () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', destination, pretty: false });
    log.child({ cycle: 7 }).error({ code: 'ENOSPC', entity: 'company 1' }, 'write failed');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 50,
      cycle: 7,
      code: 'ENOSPC',
      entity: 'company 1',
      msg: 'write failed',
    });
  });

  it('writes JSON lines, one per event, when not on a terminal', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'warn', destination }).info('hidden below level');
    createLogger({ level: 'info', destination }).info('shown');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['shown']);
  });
});
