/**
 * `docsync init`'s answers: from the flags, and at a terminal from questions for what the flags
 * leave open (the service, the folder, the client id and secret, the webhook). A script gets no
 * question: what it must say and did not is one error naming the flags.
 */
import path from 'node:path';
import { LOCAL_CONFIG_PATH, SERVER } from '../config/config-location.js';
import {
  DEFAULT_REDIRECT_URI,
  DEFAULT_SIMULATOR_URL,
  DEFAULT_STATUS_LISTEN,
  DEFAULT_WEBHOOK_LISTEN,
  defaultPaths,
  INIT_TARGETS,
  type InitTarget,
  SIMULATOR_CLIENT_CODE,
} from '../config/init-plan.js';
import { DocsyncError } from '../domain/errors.js';
import type { Prompter } from './terminal-prompt.js';

export interface InitFlags {
  readonly config?: string | undefined;
  readonly for?: string;
  readonly store?: string;
  readonly state?: string;
  readonly clientId?: string;
  readonly redirectUri?: string;
  /** `--webhook` / `--no-webhook`; undefined when neither was given. */
  readonly webhook?: boolean;
  readonly clientCode?: string;
  readonly webhookListen?: string;
  readonly statusListen?: string;
  readonly simulatorUrl?: string;
  readonly user?: string;
}

/** What the person decided; the command adds the generated secret and the simulator's login. */
export interface InitChoices {
  readonly target: InitTarget;
  readonly configFile: string;
  readonly storeRoot: string;
  readonly statePath: string;
  /** Null for the simulator: its client is built in. */
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  /** The redirect URL the registration allows; null: docsync's default. */
  readonly redirectUri: string | null;
  readonly webhook: { readonly listen: string; readonly clientCode: string } | null;
  readonly statusListen: string;
  readonly simulatorUrl: string;
  /** The user the units run docsync as, for a server's folders and secrets. */
  readonly user: string;
}

export async function initChoices(
  flags: InitFlags,
  prompter: Prompter | null,
  context: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): Promise<InitChoices> {
  const missing: string[] = [];
  const target = await chooseTarget(flags.for, prompter, missing);
  if (target === null) throw usage(missing);
  const simulator = target === 'simulator';
  // Where every other command will read it: `--config`, else DOCSYNC_CONFIG (config-location.ts).
  const configFile = path.resolve(
    context.cwd,
    flags.config ??
      nonEmpty(context.env.DOCSYNC_CONFIG) ??
      (simulator ? LOCAL_CONFIG_PATH : SERVER.configFile),
  );
  const defaults = defaultPaths(configFile, context.cwd);
  const store =
    flags.store ??
    (prompter ? await prompter.ask('Folder for the documents', defaults.storeRoot) : undefined);
  const client = simulator
    ? { clientId: null, clientSecret: null, redirectUri: flags.redirectUri ?? null }
    : await askClient();
  const webhook = await askWebhook();
  if (missing.length > 0) throw usage(missing);
  return {
    target,
    configFile,
    storeRoot: path.resolve(context.cwd, store ?? defaults.storeRoot),
    statePath: path.resolve(context.cwd, flags.state ?? defaults.statePath),
    ...client,
    webhook,
    statusListen: flags.statusListen ?? DEFAULT_STATUS_LISTEN,
    simulatorUrl: (flags.simulatorUrl ?? DEFAULT_SIMULATOR_URL).replace(/\/+$/, ''),
    user: flags.user ?? SERVER.user,
  };

  /**
   * The registration's client id, secret and redirect URL (the real service's; the simulator's
   * client is built in, and its login needs no browser). The registration lists the redirect
   * URLs the service sends a browser back to; `auth login` listens on the one docsync uses.
   */
  async function askClient(): Promise<
    Pick<InitChoices, 'clientId' | 'clientSecret' | 'redirectUri'>
  > {
    const clientId =
      flags.clientId ??
      (prompter ? await prompter.ask(`Client id of the ${target} registration`) : '');
    if (clientId === '') missing.push('--client-id <id>');
    // Never a flag: it would show in `ps` and the shell's history.
    const given = nonEmpty(context.env.DOCSYNC_CLIENT_SECRET);
    const clientSecret =
      given !== null || !prompter
        ? given
        : nonEmpty(
            await prompter.secret(
              `Client secret of the ${target} registration (not shown; empty to write it into the environment file later)`,
            ),
          );
    const redirect =
      flags.redirectUri ??
      (prompter
        ? await prompter.ask(
            `Redirect URL of the ${target} registration, where \`docsync auth login\` listens`,
            DEFAULT_REDIRECT_URI,
          )
        : DEFAULT_REDIRECT_URI);
    return {
      clientId,
      clientSecret,
      redirectUri: redirect === DEFAULT_REDIRECT_URI ? null : redirect,
    };
  }

  /** On by default at a terminal and for the simulator; a real service's needs its client code. */
  async function askWebhook(): Promise<InitChoices['webhook']> {
    const on =
      flags.webhook ??
      (prompter
        ? await prompter.yesNo(
            simulator
              ? "Take the simulator's webhooks, so its changes arrive in seconds?"
              : "Take the service's webhooks, so its changes arrive in seconds? (the service must reach this machine, through a proxy)",
            true,
          )
        : simulator);
    if (!on) return null;
    const clientCode =
      flags.clientCode ??
      (simulator
        ? SIMULATOR_CLIENT_CODE
        : prompter
          ? await prompter.ask('Client code the service signs its webhooks with')
          : '');
    if (clientCode === '') missing.push('--client-code <code> (or --no-webhook)');
    return { listen: flags.webhookListen ?? DEFAULT_WEBHOOK_LISTEN, clientCode };
  }
}

async function chooseTarget(
  given: string | undefined,
  prompter: Prompter | null,
  missing: string[],
): Promise<InitTarget | null> {
  const known = (text: string) => INIT_TARGETS.find((t) => t === text.toLowerCase()) ?? null;
  if (given !== undefined) {
    const target = known(given);
    if (target) return target;
    throw new DocsyncError(
      'USAGE',
      `--for takes simulator, staging or production, not "${given}".`,
    );
  }
  if (!prompter) {
    missing.push('--for simulator|staging|production');
    return null;
  }
  for (;;) {
    const answer = await prompter.ask(
      "Which service: the built-in simulator, or the real one's staging or production?",
      'simulator',
    );
    const target = known(answer);
    if (target) return target;
  }
}

function nonEmpty(text: string | undefined): string | null {
  return text === undefined || text.trim() === '' ? null : text.trim();
}

function usage(missing: readonly string[]): DocsyncError {
  return new DocsyncError(
    'USAGE',
    `docsync init asks at a terminal; without one, say it with ${missing.join(', ')} (docsync init --help).`,
  );
}
