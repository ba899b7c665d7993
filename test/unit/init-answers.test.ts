/**
 * `docsync init` at a terminal: the questions it asks for what the flags leave open, in order,
 * with their defaults, and what the answers become (a scripted person stands in for the
 * terminal; terminal-prompt.ts only reads lines). Also the server layout its defaults follow.
 */
import { describe, expect, it } from 'vitest';
import { initChoices } from '../../src/commands/init-answers.js';
import type { Prompter } from '../../src/commands/terminal-prompt.js';
import { defaultPaths } from '../../src/config/init-plan.js';

/** Answers questions in order from `answers` ('' takes the default) and records what it was asked. */
function scripted(answers: string[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = () => {
    if (answers.length === 0) throw new Error(`nothing scripted for: ${asked.at(-1)}`);
    return answers.shift()!;
  };
  return {
    asked,
    ask: async (question, fallback) => {
      asked.push(fallback ? `${question} [${fallback}]` : question);
      return next() || (fallback ?? '');
    },
    yesNo: async (question, fallback) => {
      asked.push(`${question} [${fallback ? 'yes' : 'no'}]`);
      const answer = next();
      return answer === '' ? fallback : answer === 'yes';
    },
    secret: async (question) => {
      asked.push(`${question} (hidden)`);
      return next();
    },
    close: () => {},
  };
}

const context = { cwd: '/home/ops/docsync', env: {} };

describe('docsync init at a terminal', () => {
  it('asks the service, the folder, the client id and secret, the redirect URL the registration allows and the webhook, and takes the defaults offered', async () => {
    const person = scripted([
      'production',
      '',
      'firm-client',
      's3cret',
      'https://docsync.firm.example/callback',
      'yes',
      'firmcode',
    ]);

    const choices = await initChoices({}, person, context);

    expect(person.asked).toEqual([
      "Which service: the built-in simulator, or the real one's staging or production? [simulator]",
      'Folder for the documents [/srv/documents/compliance]',
      'Client id of the production registration',
      'Client secret of the production registration (not shown; empty to write it into the environment file later) (hidden)',
      'Redirect URL of the production registration, where `docsync auth login` listens [http://127.0.0.1:8789/callback]',
      "Take the service's webhooks, so its changes arrive in seconds? (the service must reach this machine, through a proxy) [yes]",
      'Client code the service signs its webhooks with',
    ]);
    expect(choices).toMatchObject({
      target: 'production',
      configFile: '/etc/docsync/docsync.json',
      storeRoot: '/srv/documents/compliance',
      statePath: '/var/lib/docsync/state/docsync.db',
      clientId: 'firm-client',
      clientSecret: 's3cret',
      redirectUri: 'https://docsync.firm.example/callback',
      webhook: { listen: '127.0.0.1:8787', clientCode: 'firmcode' },
      user: 'docsync',
    });
  });

  it('for the simulator asks only the folder and the webhook, and keeps everything beside the clone', async () => {
    const person = scripted(['simulator', 'my-docs', 'no']);

    const choices = await initChoices({}, person, context);

    expect(person.asked).toHaveLength(3);
    expect(choices).toMatchObject({
      target: 'simulator',
      configFile: '/home/ops/docsync/config/docsync.json',
      storeRoot: '/home/ops/docsync/my-docs',
      statePath: '/home/ops/docsync/state/docsync.db',
      clientId: null,
      webhook: null,
      simulatorUrl: 'http://127.0.0.1:4010',
    });
  });

  it('asks nothing the flags say, and takes the client secret from DOCSYNC_CLIENT_SECRET', async () => {
    const person = scripted([]);

    const choices = await initChoices(
      {
        for: 'staging',
        store: '/data/docs',
        clientId: 'c',
        redirectUri: 'http://127.0.0.1:8790/callback',
        webhook: false,
      },
      person,
      { ...context, env: { DOCSYNC_CLIENT_SECRET: 'from-env' } },
    );

    expect(person.asked).toEqual([]);
    expect(choices).toMatchObject({
      storeRoot: '/data/docs',
      clientSecret: 'from-env',
      redirectUri: 'http://127.0.0.1:8790/callback',
      webhook: null,
    });
  });

  it('writes where every other command reads: --config, else DOCSYNC_CONFIG', async () => {
    const flags = { for: 'staging', clientId: 'c', store: '/data/docs' };
    const env = { DOCSYNC_CONFIG: '/opt/firms/acme.json' };

    const named = await initChoices(flags, null, { ...context, env });
    const flagged = await initChoices({ ...flags, config: 'beta.json' }, null, { ...context, env });

    expect(named.configFile).toBe('/opt/firms/acme.json');
    expect(flagged.configFile).toBe('/home/ops/docsync/beta.json');
  });

  it('asks the service again until the answer is one it knows', async () => {
    const person = scripted(['prod', 'staging', '', 'c', '', '', 'no']);

    const choices = await initChoices({}, person, context);

    expect(choices.target).toBe('staging');
    expect(person.asked.slice(0, 2)).toEqual([person.asked[0], person.asked[0]]);
  });
});

describe('the server layout of docsync init', () => {
  it.each([
    ['/etc/docsync/docsync.json', '/srv/documents/compliance', '/var/lib/docsync/state/docsync.db'],
    ['/etc/docsync/firm1.json', '/srv/documents/firm1', '/var/lib/docsync/firm1/state/docsync.db'],
    ['/opt/try/docsync.json', '/home/ops/documents', '/home/ops/state/docsync.db'],
  ])('%s: the store %s, the state %s', (config, storeRoot, statePath) => {
    expect(defaultPaths(config, '/home/ops')).toEqual({ storeRoot, statePath });
  });
});
