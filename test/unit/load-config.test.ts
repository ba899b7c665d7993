import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/domain/errors.js';
import { defaultEngineSettings, engineSettings } from '../../src/engine/engine-settings.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const minimal = {
  service: {
    baseUrl: 'https://api.service.test',
    webUrl: 'https://app.service.test',
    clientId: 'client',
    clientSecret: 'secret',
  },
  store: { root: 'docs' },
  webhook: { clientCode: 'FIRM', secret: 'hook-secret' },
};

function problemsOf(raw: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(raw, { env, baseDir: '/srv', source: 'test.json' });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.key}: ${p.message}`);
    throw error;
  }
  return [];
}

function withChange(change: (c: Record<string, any>) => void): unknown {
  const copy = structuredClone(minimal) as Record<string, any>;
  change(copy);
  return copy;
}

describe('configuration', () => {
  it('gives the engine the configured keys, and the tests and benches the same defaults', () => {
    const config = parseConfig(
      withChange((c) => {
        c.safety = { maxDeletePercent: 20, maxDeleteCount: 7 };
        c.onRemoteDelete = 'delete';
        c.queue = { concurrency: 2 };
      }),
      { env: {}, baseDir: '/srv', source: 'test.json' },
    );
    expect(engineSettings(config, 600)).toEqual({
      webUrl: 'https://app.service.test',
      onRemoteDelete: 'delete',
      maxDeletePercent: 20,
      maxDeleteCount: 7,
      concurrency: 2,
      overlapSeconds: 2,
      utcOffsetMinutes: 600,
    });
    const unset = parseConfig(minimal, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(defaultEngineSettings('https://app.service.test')).toEqual(engineSettings(unset, 0));
  });

  it('fills every default of daemon.md and resolves paths against the working folder', () => {
    const config = parseConfig(minimal, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(config).toMatchObject({
      service: { scope: ['cas'], redirectUri: 'http://127.0.0.1:8789/callback' },
      store: { root: '/srv/docs' },
      state: { path: '/srv/state/docsync.db' },
      schedule: {
        cron: '*/5 * * * *',
        fullReconcileCron: '30 2 * * *',
        maxPollShare: 1,
        unlodgedSweepShare: 0.05,
      },
      queue: { requestsPerSecond: 10, concurrency: 4 },
      webhook: {
        enabled: true,
        listen: { host: '127.0.0.1', port: 8787 },
        path: '/webhooks/document-change',
        allowUnsigned: false,
      },
      status: { enabled: true, listen: { host: '127.0.0.1', port: 8788 } },
      settleSeconds: 3,
      ignore: [],
      onRemoteDelete: 'trash',
      safety: { maxDeletePercent: 50, maxDeleteCount: 100, deleteHoldSeconds: 60 },
      log: { level: 'info' },
    });
  });

  it('takes the unlodged sweep share from 0 (off), and reports one polling could not spare by key', () => {
    const share = (schedule: Record<string, unknown>) =>
      problemsOf(withChange((c) => (c.schedule = schedule)));
    expect(share({ unlodgedSweepShare: 0 })).toEqual([]);
    expect(share({ unlodgedSweepShare: 0.2, maxPollShare: 0.5 })).toEqual([]);
    expect(share({ unlodgedSweepShare: -0.1 })).toEqual([
      'schedule.unlodgedSweepShare: expected a share from 0 (off) to 0.5, got -0.1',
    ]);
    expect(share({ unlodgedSweepShare: '5%' })).toEqual([
      expect.stringMatching(/^schedule\.unlodgedSweepShare: /),
    ]);
    expect(share({ unlodgedSweepShare: 0.1, maxPollShare: 0.1 })).toEqual([
      'schedule.unlodgedSweepShare: expected at most half of schedule.maxPollShare (0.05), got 0.1',
    ]);
  });

  it('starts a sweep of the unlodged list at most every 30 s unless told, and reports seconds out of range by key', () => {
    const parsed = (schedule: Record<string, unknown>) =>
      parseConfig(
        withChange((c) => (c.schedule = schedule)),
        { env: {}, baseDir: '/srv', source: 'test.json' },
      ).schedule.unlodgedSweepSeconds;
    expect(parsed({})).toBe(30);
    expect(parsed({ unlodgedSweepSeconds: 0 })).toBe(0);
    expect(parsed({ unlodgedSweepSeconds: 600 })).toBe(600);
    const problems = (value: unknown) =>
      problemsOf(withChange((c) => (c.schedule = { unlodgedSweepSeconds: value })));
    expect(problems(-1)).toEqual([
      'schedule.unlodgedSweepSeconds: expected seconds from 0 to 86400, got -1',
    ]);
    expect(problems(100_000)).toEqual([
      'schedule.unlodgedSweepSeconds: expected seconds from 0 to 86400, got 100000',
    ]);
    expect(problems('30s')).toEqual([expect.stringMatching(/^schedule\.unlodgedSweepSeconds: /)]);
  });

  it('is frozen, so no module can change it behind the others', () => {
    const config = parseConfig(minimal, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(Object.isFrozen(config.queue)).toBe(true);
    expect(() => {
      (config.queue as { concurrency: number }).concurrency = 99;
    }).toThrow(TypeError);
  });

  it('takes secrets from the environment over the file', () => {
    const config = parseConfig(
      withChange((c) => {
        delete c.service.clientSecret;
        delete c.webhook.secret;
      }),
      {
        env: {
          DOCSYNC_CLIENT_SECRET: 'from-env',
          DOCSYNC_WEBHOOK_SECRET: 'hook-env',
          DOCSYNC_REFRESH_TOKEN: 'refresh-env',
        },
        baseDir: '/srv',
        source: 'test.json',
      },
    );
    expect(config.service.clientSecret).toBe('from-env');
    expect(config.webhook.secret).toBe('hook-env');
    expect(config.service.refreshToken).toBe('refresh-env');
  });

  it.each([
    [
      'an empty object',
      {},
      [
        'service: required',
        'store: required',
        'webhook.clientCode: required while the webhook receiver is on: the client code the service signs with',
        'webhook.secret: required while the webhook receiver is on: set DOCSYNC_WEBHOOK_SECRET (in the environment file beside the configuration; `docsync init` makes one)',
      ],
    ],
    [
      'a wrong type and a bad URL',
      withChange((c) => {
        c.service.baseUrl = 'ftp://files';
        c.queue = { concurrency: '4' };
      }),
      [
        'service.baseUrl: expected an http(s) URL, got "ftp://files"',
        'queue.concurrency: expected a number, got "4"',
      ],
    ],
    [
      'out-of-range numbers',
      withChange((c) => {
        c.queue = { requestsPerSecond: 0, concurrency: 0 };
        c.safety = { maxDeletePercent: 150, maxDeleteCount: 2.5, deleteHoldSeconds: -5 };
        c.settleSeconds = -1;
      }),
      [
        'queue.requestsPerSecond: expected a number above 0, got 0',
        'queue.concurrency: expected an integer from 1 and up, got 0',
        'settleSeconds: expected seconds from 0 to 3600, got -1',
        'safety.maxDeletePercent: expected a percentage from 0 to 100, got 150',
        'safety.maxDeleteCount: expected an integer from 0 and up, got 2.5',
        'safety.deleteHoldSeconds: expected seconds from 0 to 86400, got -5',
      ],
    ],
    [
      'a misspelt key at two depths',
      withChange((c) => {
        c.service.baseURL = 'x';
        c.onRemoteDelet = 'trash';
      }),
      [
        'service.baseURL: unknown key; did you mean "baseUrl"?',
        'onRemoteDelet: unknown key; did you mean "onRemoteDelete"?',
      ],
    ],
    [
      'a misspelt key in each kind of section, and a key like none',
      withChange((c) => {
        c.queue = { requestPerSecond: 5 };
        c.status = { lisen: '127.0.0.1:8788' };
        c.sheduel = {};
        c.colour = 'blue';
      }),
      [
        'queue.requestPerSecond: unknown key; did you mean "requestsPerSecond"?',
        'status.lisen: unknown key; did you mean "listen"?',
        'sheduel: unknown key; did you mean "schedule"?',
        'colour: unknown key',
      ],
    ],
    [
      'bad cron, enum, listen address and path',
      withChange((c) => {
        c.schedule = { cron: 'every five minutes' };
        c.onRemoteDelete = 'shred';
        c.webhook.listen = 'localhost';
        c.webhook.path = 'hooks';
        c.status = { listen: '127.0.0.1:99999' };
        c.log = { level: 'loud' };
      }),
      [
        'schedule.cron: expected a cron expression such as "*/5 * * * *", got "every five minutes"',
        'webhook.listen: expected host:port, got "localhost"',
        'webhook.path: expected a path starting with /, got "hooks"',
        'status.listen: expected a port from 0 to 65535, got 99999',
        'onRemoteDelete: expected one of "trash", "delete", got "shred"',
        'log.level: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "loud"',
      ],
    ],
    [
      'a webhook receiver without its secret',
      withChange((c) => {
        c.webhook = { clientCode: 'FIRM' };
      }),
      [
        'webhook.secret: required while the webhook receiver is on: set DOCSYNC_WEBHOOK_SECRET (in the environment file beside the configuration; `docsync init` makes one)',
      ],
    ],
    [
      'a public webhook URL that is no URL and a health age of zero',
      withChange((c) => {
        c.webhook.publicUrl = '/webhooks/document-change';
        c.status = { healthMaxAgeSeconds: 0 };
      }),
      [
        'webhook.publicUrl: expected an http(s) URL, got "/webhooks/document-change"',
        'status.healthMaxAgeSeconds: expected an integer from 1 and up, got 0',
      ],
    ],
    ['an array at the top', [], [': expected a JSON object at the top']],
  ])('reports every problem of %s with its key', (_name, raw, expected) => {
    expect(problemsOf(raw)).toEqual(expected);
  });

  it('fills the service URLs from service.environment, and an explicit URL still wins', () => {
    const parse = (raw: unknown) =>
      parseConfig(raw, { env: {}, baseDir: '/srv', source: 'test.json' });
    const production = parse(
      withChange((c) => {
        c.service = { environment: 'production', clientId: 'client', clientSecret: 'secret' };
      }),
    );
    expect(production.service).toMatchObject({
      environment: 'production',
      baseUrl: 'https://api.bgl360.com.au',
      webUrl: 'https://app.bgl360.com.au',
    });
    const staging = parse(
      withChange((c) => {
        c.service.environment = 'staging';
        delete c.service.baseUrl;
      }),
    );
    expect(staging.service.baseUrl).toBe('https://api.staging.bgl360.com.au');
    expect(staging.service.webUrl).toBe('https://app.service.test');
    // An old configuration (no environment) keeps its meaning.
    expect(parse(minimal).service).toMatchObject({
      baseUrl: 'https://api.service.test',
      webUrl: 'https://app.service.test',
    });
    expect(parse(minimal).service.environment).toBeUndefined();
  });

  it('reports a missing URL with the environment as the other way to give it', () => {
    expect(
      problemsOf(
        withChange((c) => {
          delete c.service.baseUrl;
          delete c.service.webUrl;
        }),
      ),
    ).toEqual([
      'service.baseUrl: required (or set service.environment to "staging" or "production")',
      'service.webUrl: required (or set service.environment to "staging" or "production")',
    ]);
    expect(
      problemsOf(
        withChange((c) => {
          c.service.environment = 'prod';
        }),
      ),
    ).toEqual(['service.environment: expected one of "staging", "production", got "prod"']);
  });

  it('takes corrected route paths, and reports an unknown route or a lost placeholder by key', () => {
    const config = parseConfig(
      withChange((c) => {
        c.service.routes = { statusTypes: '/cas/statusTypes', token: '/oauth2/token' };
      }),
      { env: {}, baseDir: '/srv', source: 'test.json' },
    );
    expect(config.service.routes).toEqual({
      statusTypes: '/cas/statusTypes',
      token: '/oauth2/token',
    });
    const problems = problemsOf(
      withChange((c) => {
        c.service.routes = {
          listDocument: '/x',
          documentDetails: '/{owner}/documents',
          deleteDocument: '/{owner}/documents/{id}',
          listCompanies: 'cas/companies',
          statusTypes: 5,
        };
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^service\.routes\.listDocument: expected a route name \(authorize, token, listCompanies, .*pensionSummary\), got "listDocument"$/,
      ),
      'service.routes.documentDetails: expected a path with {documentId} (the built-in one is /{owner}/documents/{documentId}), got "/{owner}/documents"',
      'service.routes.deleteDocument: expected a path with {documentId} and no {id} (the built-in one is /{owner}/documents/{documentId}), got "/{owner}/documents/{id}"',
      'service.routes.listCompanies: expected a path starting with / (no query, no spaces), got "cas/companies"',
      'service.routes.statusTypes: expected a path (a string), got 5',
    ]);
  });

  it("takes the service's shapes, api.md's by default, and reports a wrong one by key", () => {
    const parse = (raw: unknown) =>
      parseConfig(raw, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(parse(minimal).service.shapes).toEqual({ lists: {}, uploadField: 'file' });
    const set = parse(
      withChange((c) => {
        c.service.shapes = { lists: { companies: 'items' }, uploadField: 'upload' };
      }),
    );
    expect(set.service.shapes).toEqual({ lists: { companies: 'items' }, uploadField: 'upload' });
    const problems = problemsOf(
      withChange((c) => {
        c.service.shapes = {
          lists: { compnies: 'items', trusts: '', documents: 3 },
          uploadField: 'my file',
          listKey: 'items',
        };
      }),
    );
    expect(problems).toEqual([
      'service.shapes.lists.compnies: expected a list\'s key as the contract gives it (companies, trusts, trustRelationships, statusTypes, documents, contacts, unitTransactions), got "compnies"',
      'service.shapes.lists.trusts: expected the key the service puts the trusts under (a non-empty string), got ""',
      'service.shapes.lists.documents: expected the key the service puts the documents under (a non-empty string), got 3',
      'service.shapes.uploadField: expected a field name: visible ASCII characters, no spaces or quotes, got "my file"',
      expect.stringMatching(/^service\.shapes\.listKey: unknown key/),
    ]);
    expect(problemsOf(withChange((c) => (c.service.shapes = { lists: 'items' })))).toEqual([
      'service.shapes.lists: expected an object of list keys, e.g. {"companies": "items"}, got "items"',
    ]);
  });

  it('authenticates the client with HTTP Basic unless told to post its credentials', () => {
    const parse = (raw: unknown) =>
      parseConfig(raw, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(parse(minimal).service.clientAuth).toBe('client_secret_basic');
    const post = parse(withChange((c) => (c.service.clientAuth = 'client_secret_post')));
    expect(post.service.clientAuth).toBe('client_secret_post');
    expect(problemsOf(withChange((c) => (c.service.clientAuth = 'basic')))).toEqual([
      'service.clientAuth: expected one of "client_secret_basic", "client_secret_post", got "basic"',
    ]);
  });

  it('takes the public webhook URL and the health age, and leaves both unset by default', () => {
    const config = parseConfig(
      withChange((c) => {
        c.webhook.publicUrl = 'https://docsync.firm.test/hooks/doc';
        c.status = { healthMaxAgeSeconds: 600 };
      }),
      { env: {}, baseDir: '/srv', source: 'test.json' },
    );
    expect(config.webhook.publicUrl).toBe('https://docsync.firm.test/hooks/doc');
    expect(config.status.healthMaxAgeSeconds).toBe(600);
    const defaults = parseConfig(minimal, { env: {}, baseDir: '/srv', source: 'test.json' });
    expect(defaults.webhook.publicUrl).toBeUndefined();
    expect(defaults.status.healthMaxAgeSeconds).toBeUndefined();
  });

  it('takes status.publicUrl only while the status listener, which serves its links, is on', () => {
    const on = withChange((c) => (c.status = { publicUrl: 'https://docsync.firm.test' }));
    expect(
      parseConfig(on, { env: {}, baseDir: '/srv', source: 'test.json' }).status.publicUrl,
    ).toBe('https://docsync.firm.test');
    const off = withChange(
      (c) => (c.status = { enabled: false, publicUrl: 'https://docsync.firm.test' }),
    );
    expect(problemsOf(off)).toEqual([
      'status.publicUrl: the status listener serves the document links: set status.enabled to true, or remove status.publicUrl',
    ]);
    expect(problemsOf(withChange((c) => (c.status = { publicUrl: 'docsync' })))).toEqual([
      'status.publicUrl: expected an http(s) URL, got "docsync"',
    ]);
  });

  it('needs no webhook secret when the receiver is off or unsigned messages are allowed', () => {
    expect(problemsOf(withChange((c) => (c.webhook = { enabled: false })))).toEqual([]);
    expect(problemsOf(withChange((c) => (c.webhook = { allowUnsigned: true })))).toEqual([]);
  });

  it('reads the file named by --config, then DOCSYNC_CONFIG, and says which file is wrong', () => {
    const dir = tempDir();
    const good = path.join(dir, 'good.json');
    const bad = path.join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify(minimal));
    writeFileSync(bad, '{ "service": ');

    expect(loadConfig({ env: { DOCSYNC_CONFIG: good }, cwd: dir }).store.root).toBe(
      path.join(dir, 'docs'),
    );
    expect(() => loadConfig({ path: bad, env: { DOCSYNC_CONFIG: good } })).toThrow(
      new RegExp(`Invalid configuration \\(${bad}\\):\\n  - not valid JSON`),
    );
    expect(() => loadConfig({ path: path.join(dir, 'missing.json') })).toThrow(
      /missing\.json does not exist; write one there with `docsync init --config /,
    );
  });

  it('documents every key in config/docsync.example.json, which is valid once its placeholders are filled', () => {
    const example = path.resolve(import.meta.dirname, '../../config/docsync.example.json');
    const raw = JSON.parse(readFileSync(example, 'utf8'));
    // As copied, the file names each value the user must put in, with its key.
    expect(problemsOf(raw).map((p) => p.split(':')[0])).toEqual([
      'service.clientId',
      'service.clientSecret',
      'webhook.clientCode',
      'webhook.secret',
      'webhook.resourceUrlTemplate',
      'webhook.publicUrl',
      'status.publicUrl',
    ]);
    raw.service.clientId = 'docsync-firm';
    raw.webhook.clientCode = 'FIRM1';
    raw.webhook.resourceUrlTemplate = 'https://dms.firm.test/open?path={path}';
    raw.webhook.publicUrl = 'https://docsync.firm.test/webhooks/document-change';
    raw.status.publicUrl = 'https://docsync.firm.test';
    const config = parseConfig(raw, {
      env: { DOCSYNC_CLIENT_SECRET: 'from-env', DOCSYNC_WEBHOOK_SECRET: 'hook-env' },
      baseDir: '/srv',
      source: example,
    });
    // Listen addresses are parsed into { host, port }; compare at the key the user writes.
    const keys = (value: unknown, prefix = ''): string[] =>
      typeof value === 'object' && value !== null && !Array.isArray(value) && !('port' in value)
        ? Object.entries(value).flatMap(([k, v]) => keys(v, `${prefix}${k}.`))
        : [prefix.slice(0, -1)];
    const exampleKeys = keys(JSON.parse(readFileSync(example, 'utf8')));
    // The example names its environment; the two URLs that fills are in the README's table.
    expect(config.service.environment).toBe('staging');
    const filled = ['service.baseUrl', 'service.webUrl'];
    expect(exampleKeys.sort()).toEqual(
      keys(config)
        .filter((k) => !filled.includes(k))
        .sort(),
    );
  });

  it("reports each of the example's placeholders left in with its key and what to do", () => {
    const problems = problemsOf(
      withChange((c) => {
        c.service.clientId = 'your-client-id';
        c.service.clientSecret = 'set DOCSYNC_CLIENT_SECRET instead of writing it here';
        c.webhook.clientCode = 'YOUR_CLIENT_CODE';
        c.webhook.publicUrl = 'https://docsync.example.com/webhooks/document-change';
        c.webhook.resourceUrlTemplate = 'https://example.org/open?path={path}';
      }),
    );
    expect(problems).toEqual([
      `service.clientId: "your-client-id" is the example's placeholder: write your own value here`,
      `service.clientSecret: "set DOCSYNC_CLIENT_SECRET instead of writing it here" is the example's placeholder: set DOCSYNC_CLIENT_SECRET (in the environment file beside the configuration) and remove this key, or write the value here`,
      `webhook.clientCode: "YOUR_CLIENT_CODE" is the example's placeholder: write your own value here`,
      `webhook.publicUrl: "https://docsync.example.com/webhooks/document-change" is the example's placeholder: write your own URL here, or remove the key`,
      `webhook.resourceUrlTemplate: "https://example.org/open?path={path}" is the example's placeholder: write your own URL here, or remove the key`,
    ]);
    // The environment's value replaces the file's placeholder, as it replaces any value.
    expect(
      problemsOf(
        withChange((c) => {
          c.service.clientSecret = 'set DOCSYNC_CLIENT_SECRET instead of writing it here';
        }),
        { DOCSYNC_CLIENT_SECRET: 'the real one' },
      ),
    ).toEqual([]);
    // Lookalikes are the user's own values.
    expect(
      problemsOf(
        withChange((c) => {
          c.service.clientId = 'yourfirm';
          c.webhook.publicUrl = 'https://docsync.notexample.com/hook';
        }),
      ),
    ).toEqual([]);
  });
});
