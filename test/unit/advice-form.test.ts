/**
 * Advice that acts on the firm it was given for: every command docsync advises is written in
 * the form that runs where the person is (`node dist/cli.js` in a clone, `docsync` installed,
 * `sudo -u docsync docsync` for a configuration in /etc/docsync) and names the configuration it
 * was run with, unless docsync finds that file by itself. Here the rule itself
 * (domain/advice-form.ts, commands/advice-here.ts) and `docsync init`'s next steps for a host of
 * several firms, which cannot be written in a test (/etc/docsync is the machine's); the
 * commands as a person runs them are in integration/advice-names-config.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configAdvice } from '../../src/commands/advice-here.js';
import { initReport } from '../../src/commands/init-next-steps.js';
import type { InitAnswers } from '../../src/config/init-plan.js';
import {
  type AdviceForm,
  adviceCommand,
  inAdviceForm,
  PLAIN_ADVICE,
  shellWord,
} from '../../src/domain/advice-form.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = '/usr/local/lib/node_modules/docsync';

/** The files a machine has, for where docsync looks by itself. */
const having =
  (...files: string[]) =>
  (file: string) =>
    files.includes(file);

const formFor = (
  self: string,
  flag: string | undefined,
  exists: (file: string) => boolean,
  env: NodeJS.ProcessEnv = {},
): AdviceForm => ({ self, ...configAdvice(flag, { cwd: '/root', env }, exists) });

describe('the form of a command docsync advises', () => {
  it.each([
    [
      'in a clone, its config/docsync.json found by itself',
      'node dist/cli.js',
      undefined,
      {},
      'node dist/cli.js check',
    ],
    [
      'in a clone, a file named by --config',
      'node dist/cli.js',
      '/home/ops/firm.json',
      {},
      'node dist/cli.js --config /home/ops/firm.json check',
    ],
    [
      'a file named by DOCSYNC_CONFIG (which sudo and another shell do not carry)',
      'docsync',
      undefined,
      { DOCSYNC_CONFIG: '/home/ops/firm.json' },
      'docsync --config /home/ops/firm.json check',
    ],
    [
      "the server's own file, found by itself",
      'docsync',
      '/etc/docsync/docsync.json',
      {},
      'sudo -u docsync docsync check',
    ],
    [
      'one firm of several on a server',
      'docsync',
      '/etc/docsync/acme.json',
      {},
      'sudo -u docsync docsync --config /etc/docsync/acme.json check',
    ],
    [
      'a path a shell would split',
      'docsync',
      '/srv/my firm/docsync.json',
      {},
      "docsync --config '/srv/my firm/docsync.json' check",
    ],
  ])('%s', (_, self, flag, env, expected) => {
    // A clone's file is found first, where there is one (in /root here, for the clone's case).
    const clone = flag === undefined && !('DOCSYNC_CONFIG' in env);
    const exists = having(
      '/etc/docsync/docsync.json',
      '/etc/docsync/acme.json',
      ...(clone ? ['/root/config/docsync.json'] : []),
    );
    expect(adviceCommand(formFor(self, flag, exists, env), 'check')).toBe(expected);
  });

  it('runs init as root and the simulator as oneself, and keeps a --config the advice names', () => {
    const form = formFor('docsync', '/etc/docsync/acme.json', () => true);
    expect(adviceCommand(form, 'init --config /etc/docsync/acme.json')).toBe(
      'sudo docsync init --config /etc/docsync/acme.json',
    );
    expect(adviceCommand(form, 'simulator --seed demo')).toBe('docsync simulator --seed demo');
    expect(adviceCommand(form, 'status --config /etc/docsync/beta.json')).toBe(
      'sudo -u docsync docsync status --config /etc/docsync/beta.json',
    );
  });

  it('puts every `docsync …` of a sentence into that form, and nothing else', () => {
    const form = formFor('node dist/cli.js', '/tmp/firms/acme.json', () => true);
    const said =
      'Run `docsync auth login` to authorise docsync again; `docsync deletes list` shows them (`systemctl restart docsync`, `docsync …`).';
    expect(inAdviceForm(said, form)).toBe(
      'Run `node dist/cli.js --config /tmp/firms/acme.json auth login` to authorise docsync again; `node dist/cli.js --config /tmp/firms/acme.json deletes list` shows them (`systemctl restart docsync`, `node dist/cli.js --config /tmp/firms/acme.json …`).',
    );
    expect(inAdviceForm(said, PLAIN_ADVICE)).toBe(said);
  });
});

const answers = (configFile: string, firm: string): InitAnswers => ({
  target: 'production',
  configFile,
  storeRoot: `/srv/documents/${firm}`,
  statePath:
    firm === 'compliance'
      ? '/var/lib/docsync/state/docsync.db'
      : `/var/lib/docsync/${firm}/state/docsync.db`,
  clientId: 'id',
  clientSecret: 'secret',
  redirectUri: null,
  simulator: null,
  webhook: null,
  statusListen: '127.0.0.1:8788',
});

/** The commands of init's "Next:", one per `&&`. */
function nextCommands(report: string): string[] {
  const next = report.slice(report.indexOf('Next:\n'));
  return next
    .split('\n')
    .filter((line) => /^ {2}(sudo|docsync|node) /.test(line))
    .flatMap((line) => line.replace(/#.*$/, '').split('&&'))
    .map((command) => command.trim());
}

describe('a path in advised command', () => {
  it('is read back by a shell as written: nothing inside it expands or runs', () => {
    expect(shellWord('/etc/docsync/acme.json')).toBe('/etc/docsync/acme.json');
    for (const file of ['/srv/firm $HOME/a`id`!.json', "/srv/o'brien & co/docsync.json"]) {
      const echoed = spawnSync('sh', ['-c', `printf %s ${shellWord(file)}`], { encoding: 'utf8' });
      expect(echoed.stdout).toBe(file);
    }
  });
});

describe('docsync init on a server', () => {
  it('names the firm’s configuration in every command it advises for /etc/docsync/acme.json', () => {
    const exists = having('/etc/docsync/docsync.json', '/etc/docsync/acme.json');
    const report = initReport(
      answers('/etc/docsync/acme.json', 'acme'),
      { owner: true, made: [], notMade: [] },
      {
        advice: formFor('docsync', '/etc/docsync/acme.json', exists),
        packageDir: PACKAGE,
        user: 'docsync',
      },
    );

    expect(nextCommands(report)).toEqual([
      `sudo cp ${PACKAGE}/systemd/docsync@.service /etc/systemd/system/`,
      'sudo systemctl daemon-reload',
      'sudo -u docsync docsync --config /etc/docsync/acme.json auth login',
      'sudo -u docsync docsync --config /etc/docsync/acme.json check',
      'sudo -u docsync docsync --config /etc/docsync/acme.json run --once --dry-run',
      'sudo systemctl enable --now docsync@acme',
    ]);
  });

  it('prints the README’s and docs/operating.md’s server steps for /etc/docsync/docsync.json', () => {
    const exists = having('/etc/docsync/docsync.json');
    const report = initReport(
      answers('/etc/docsync/docsync.json', 'compliance'),
      { owner: true, made: [], notMade: [] },
      {
        advice: formFor('docsync', '/etc/docsync/docsync.json', exists),
        packageDir: PACKAGE,
        user: 'docsync',
      },
    );

    for (const file of ['README.md', 'docs/operating.md']) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
        .map(([, b]) => b!)
        .find((b) => b.includes('sudo docsync init'))!;
      const afterInit = block
        .slice(block.indexOf('\n', block.indexOf('sudo docsync init')) + 1)
        .split('\n')
        // What comes after the steps: looking at the daemon started.
        .filter((line) => !line.startsWith('systemctl status'))
        .flatMap((line) => line.replace(/#.*$/, '').split('&&'))
        .map((command) => command.trim())
        .filter((command) => command !== '');
      expect(afterInit, file).toEqual(nextCommands(report));
    }
  });
});
