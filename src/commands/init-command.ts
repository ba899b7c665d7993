/**
 * `docsync init`: a configuration that works, and the commands to run next. For the simulator
 * (a clone: `config/docsync.json`, folders beside it; the running simulator gives a login and
 * takes the webhook's secret) or the real service's staging or production (a server: the
 * units' paths, `/etc/docsync/docsync.json`, the state folder and the store made for the
 * daemon's user when run as root). The secrets go to the environment file beside the
 * configuration (config-location.ts). Nothing that is there is overwritten.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { got } from 'got';
import { envFileOf } from '../config/config-location.js';
import { parseEnvText } from '../config/env-file.js';
import { type InitAnswers, type PlannedFile, planInitFiles } from '../config/init-plan.js';
import { ENV_OVERRIDES, parseConfig } from '../config/load-config.js';
import { DocsyncError } from '../domain/errors.js';
import { SIMULATOR_CLIENT } from '../simulator/index.js';
import { adviceFormHere } from './advice-here.js';
import { type InitChoices, type InitFlags, initChoices } from './init-answers.js';
import { initReport, type Prepared } from './init-next-steps.js';
import { alreadyThere, makeFolder, type Owner, systemUser, writeNewFile } from './new-files.js';
import { selfOn } from './self-command.js';
import { isInteractive, type Terminal } from './terminal.js';
import { terminalPrompter } from './terminal-prompt.js';

export async function initCommand(flags: InitFlags, terminal: Terminal): Promise<void> {
  const prompter = isInteractive(terminal)
    ? terminalPrompter(terminal.stdin, terminal.stdout)
    : null;
  let choices: InitChoices;
  try {
    choices = await initChoices(flags, prompter, { cwd: terminal.cwd, env: terminal.env });
  } finally {
    prompter?.close();
  }
  const files = [choices.configFile, envFileOf(choices.configFile)];
  const taken = files.find((file) => existsSync(file));
  if (taken) throw alreadyThere(taken);

  const answers = await answersFor(choices, terminal);
  const planned = planInitFiles(answers);
  checkLoads(planned, answers);
  const prepared = await writeAll(planned, answers, choices);
  terminal.stdout.write(
    initReport(answers, prepared, {
      advice: adviceFormHere(terminal, answers.configFile),
      packageDir: path.resolve(import.meta.dirname, '../..'),
      user: choices.user,
    }),
  );
}

async function answersFor(choices: InitChoices, terminal: Terminal): Promise<InitAnswers> {
  const webhook = choices.webhook
    ? { ...choices.webhook, secret: randomBytes(32).toString('base64url') }
    : null;
  const common = {
    target: choices.target,
    configFile: choices.configFile,
    storeRoot: choices.storeRoot,
    statePath: choices.statePath,
    redirectUri: choices.redirectUri,
    webhook,
    statusListen: choices.statusListen,
  };
  if (choices.target !== 'simulator') {
    return {
      ...common,
      clientId: choices.clientId!,
      clientSecret: choices.clientSecret,
      simulator: null,
    };
  }
  const login = await simulatorLogin(choices.simulatorUrl, webhook, selfOn(terminal));
  return {
    ...common,
    clientId: SIMULATOR_CLIENT.id,
    clientSecret: SIMULATOR_CLIENT.secret,
    simulator: {
      baseUrl: choices.simulatorUrl,
      webUrl: `${choices.simulatorUrl}/web`,
      ...login,
    },
  };
}

/**
 * The running simulator's admin API: a login for docsync (as `docsync auth login` would get
 * from the service), where its link host listens (the one origin docsync may fetch links from)
 * and, with the receiver on, the webhook target with the secret just made.
 */
async function simulatorLogin(
  url: string,
  webhook: InitAnswers['webhook'],
  self: string,
): Promise<{ refreshToken: string; linkUrl: string }> {
  const admin = got.extend({
    prefixUrl: `${url}/_admin`,
    retry: { limit: 0 },
    timeout: { request: 10_000 },
  });
  let refreshToken: string;
  try {
    ({ refreshToken } = await admin
      .post('refresh-tokens', {
        json: {},
        // A simulator started a moment ago (`… simulator &` on the line before) may not listen
        // yet: a refused connection is tried again for a few seconds.
        retry: {
          limit: 20,
          methods: ['POST'],
          statusCodes: [],
          errorCodes: ['ECONNREFUSED'],
          backoffLimit: 250,
        },
      })
      .json<{ refreshToken: string }>());
  } catch (error) {
    throw new DocsyncError(
      'INIT_NO_SIMULATOR',
      `No simulator answers at ${url} (${(error as Error).message}). Start it first, in another terminal: ${self} simulator --seed demo; or name where it runs with --simulator-url.`,
    );
  }
  const { baseUrl: linkUrl } = await admin.get('links').json<{ baseUrl: string }>();
  if (webhook) {
    const target = `http://${webhook.listen}/webhooks/document-change`;
    await admin.put('webhook', {
      json: { url: target, clientCode: webhook.clientCode, secret: webhook.secret },
    });
  }
  return { refreshToken, linkUrl };
}

/** What init writes must load as it is: a bad flag (an address, a path) is named by its key. */
function checkLoads(planned: readonly PlannedFile[], answers: InitAnswers): void {
  const [config, envFile] = planned as [PlannedFile, PlannedFile];
  const names = ENV_OVERRIDES.map(([name]) => name);
  const env = parseEnvText(envFile.content, envFile.path, names).values;
  // A secret still to be written in is no problem of what init wrote.
  const withSecret = {
    ...env,
    DOCSYNC_CLIENT_SECRET: env.DOCSYNC_CLIENT_SECRET || 'to be written',
  };
  parseConfig(JSON.parse(config.content), {
    env: withSecret,
    baseDir: path.dirname(answers.configFile),
    source: `docsync init: ${answers.configFile}`,
  });
}

async function writeAll(
  planned: readonly PlannedFile[],
  answers: InitAnswers,
  choices: InitChoices,
): Promise<Prepared> {
  // A server's folders belong to the daemon's user; only root can give them away.
  const server = answers.target !== 'simulator';
  const owner: Owner | null = server && process.getuid?.() === 0 ? systemUser(choices.user) : null;
  await makeFolder(path.dirname(answers.configFile), { mode: 0o755 });
  for (const file of planned) {
    await writeNewFile(file.path, file.content, {
      // Root and the daemon's user read the secrets; the settings are no secret.
      mode: file.secret ? (owner ? 0o640 : 0o600) : 0o644,
      owner: file.secret && owner ? owner : undefined,
    });
  }
  if (!server) return { owner: false, made: [], notMade: [] };
  // The units' ReadWritePaths= must name folders that are there, and docsync running as its
  // own user cannot make them under /var/lib or /srv.
  const made: string[] = [];
  const notMade: { dir: string; reason: string }[] = [];
  const folders = [
    [path.dirname(answers.statePath), 0o700],
    // setgid: what the people sharing the folder put in it stays in its group.
    [answers.storeRoot, 0o2770],
  ] as const;
  for (const [dir, mode] of folders) {
    try {
      if (await makeFolder(dir, { mode, owner: owner ?? undefined })) made.push(dir);
    } catch (error) {
      notMade.push({ dir, reason: (error as NodeJS.ErrnoException).code ?? String(error) });
    }
  }
  return { owner: owner !== null, made, notMade };
}
