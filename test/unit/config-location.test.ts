/**
 * Where docsync finds its configuration and its secrets (config-location.ts, env-file.ts):
 * the server convention of issue 27 case 5, without touching the machine's /etc.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  envFileOf,
  LOCAL_CONFIG_PATH,
  locateConfig,
  missingConfigMessage,
  SERVER,
} from '../../src/config/config-location.js';
import { envLine, parseEnvText } from '../../src/config/env-file.js';

const known = ['DOCSYNC_CLIENT_SECRET', 'DOCSYNC_WEBHOOK_SECRET', 'DOCSYNC_REFRESH_TOKEN'];

describe('locateConfig', () => {
  const cwd = '/home/ops';
  const there =
    (...files: string[]) =>
    (file: string) =>
      files.includes(file);

  it.each([
    ['--config wins', 'a.json', { DOCSYNC_CONFIG: 'b.json' }, there(), 'a.json', true],
    ['then DOCSYNC_CONFIG', undefined, { DOCSYNC_CONFIG: 'b.json' }, there(), 'b.json', true],
    [
      'then config/docsync.json here',
      undefined,
      {},
      there('/home/ops/config/docsync.json', SERVER.configFile),
      LOCAL_CONFIG_PATH,
      false,
    ],
    [
      'then /etc/docsync/docsync.json (an installed docsync)',
      undefined,
      {},
      there(SERVER.configFile),
      '/etc/docsync/docsync.json',
      false,
    ],
    ['nowhere: config/docsync.json, to say so', undefined, {}, there(), LOCAL_CONFIG_PATH, false],
    [
      'an empty DOCSYNC_CONFIG names nothing',
      undefined,
      { DOCSYNC_CONFIG: '' },
      there(SERVER.configFile),
      SERVER.configFile,
      false,
    ],
  ])('%s', (_name, flag, env, exists, file, named) => {
    expect(locateConfig(flag, env, { cwd, exists })).toEqual({ file, named });
  });

  it('names docsync init when no configuration is anywhere, and what was looked at', () => {
    const message = missingConfigMessage({ file: LOCAL_CONFIG_PATH, named: false }, cwd);
    expect(message).toContain('config/docsync.json (in /home/ops)');
    expect(message).toContain('/etc/docsync/docsync.json');
    expect(message).toContain('run `docsync init`');
    expect(message).not.toContain('docsync.example.json');
  });

  it('keeps the secrets beside the configuration, in the file the units read', () => {
    expect(envFileOf(SERVER.configFile)).toBe('/etc/docsync/docsync.env');
    expect(envFileOf('/etc/docsync/firm1.json')).toBe('/etc/docsync/firm1.env');
    expect(envFileOf(path.join('config', 'docsync.json'))).toBe('config/docsync.env');
  });
});

describe('the environment file', () => {
  it('reads NAME=value lines, quoted or not, and skips comments and other programs’ variables', () => {
    const file = parseEnvText(
      [
        '# secrets',
        'DOCSYNC_CLIENT_SECRET=s3cret',
        '',
        'DOCSYNC_WEBHOOK_SECRET="with space"',
        "DOCSYNC_REFRESH_TOKEN='r1'",
        'NODE_OPTIONS=--max-old-space-size=512',
      ].join('\n'),
      'docsync.env',
      known,
    );
    expect(file.problems).toEqual([]);
    expect(file.values).toEqual({
      DOCSYNC_CLIENT_SECRET: 's3cret',
      DOCSYNC_WEBHOOK_SECRET: 'with space',
      DOCSYNC_REFRESH_TOKEN: 'r1',
      NODE_OPTIONS: '--max-old-space-size=512',
    });
  });

  it('names a misspelt variable of docsync and a line that is not NAME=value', () => {
    const file = parseEnvText(
      'DOCSYNC_CLIENT_SECRT=x\nexport X\n',
      '/etc/docsync/docsync.env',
      known,
    );
    expect(file.problems.map((p) => p.message)).toEqual([
      '/etc/docsync/docsync.env line 1: DOCSYNC_CLIENT_SECRT is not a variable docsync reads (DOCSYNC_CLIENT_SECRET, DOCSYNC_WEBHOOK_SECRET, DOCSYNC_REFRESH_TOKEN)',
      '/etc/docsync/docsync.env line 2: expected NAME=value',
    ]);
  });

  it.each([
    'plain-Secret_1.2:3/4+5=6@7',
    'with space',
    'dollar$and"double',
    "it's",
    'back\\slash and space',
  ])('writes %j so that it reads back as it is', (value) => {
    const line = envLine('DOCSYNC_CLIENT_SECRET', value);
    expect(line).not.toBeNull();
    expect(parseEnvText(line!, 'docsync.env', known).values.DOCSYNC_CLIENT_SECRET).toBe(value);
  });

  it('writes no value it cannot carry the same for systemd and docsync', () => {
    expect(envLine('DOCSYNC_CLIENT_SECRET', `both ' and "`)).toBeNull();
    expect(envLine('DOCSYNC_CLIENT_SECRET', 'a\nb')).toBeNull();
  });
});
