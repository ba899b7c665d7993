/**
 * What `docsync init` says when it is done: what it wrote and made, then the commands to run
 * next, as they run from here (`node dist/cli.js` in a clone, `docsync` installed) and, on a
 * server, as the daemon's user with the units of the package.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { envFileOf, LOCAL_CONFIG_PATH, SERVER } from '../config/config-location.js';
import type { InitAnswers } from '../config/init-plan.js';

export interface Prepared {
  /** The folders and the secrets' file were given to the daemon's user. */
  readonly owner: boolean;
  readonly made: readonly string[];
  readonly notMade: readonly { readonly dir: string; readonly reason: string }[];
}

export interface ReportContext {
  /** How to run docsync from here (self-command.ts). */
  readonly self: string;
  /** The installed package (its systemd/ units). */
  readonly packageDir: string;
  readonly user: string;
  /** Where init was run: the advice's `--config` is left out where it would be found anyway. */
  readonly cwd: string;
}

/** A thing to do: a sentence, or a command with what it is for. */
type Step = { readonly say: string } | { readonly run: string; readonly why: string };

export function initReport(a: InitAnswers, prepared: Prepared, ctx: ReportContext): string {
  const env = envFileOf(a.configFile);
  const lines = [
    'docsync init wrote',
    `  ${a.configFile}   the configuration (no secrets in it)`,
    `  ${env}   the secrets (${secretsIn(a)})`,
  ];
  if (prepared.made.length > 0) {
    lines.push(
      `and made ${prepared.made.join(' and ')}${prepared.owner ? ` for the user ${ctx.user}` : ''}.`,
    );
  }
  const steps = onServer(a) ? serverSteps(a, prepared, ctx) : localSteps(a, ctx);
  lines.push('', 'Next:', ...render(steps), '');
  return lines.join('\n');
}

/** Commands as they are typed, with `# why` after them, so a line can be pasted whole. */
function render(steps: readonly Step[]): string[] {
  const width = Math.max(...steps.map((s) => ('run' in s ? s.run.length : 0)));
  return steps.map((s) => ('run' in s ? `  ${s.run.padEnd(width)}   # ${s.why}` : `  ${s.say}`));
}

function secretsIn(a: InitAnswers): string {
  const what = [a.clientSecret === null ? 'the client secret: write it in' : 'the client secret'];
  if (a.webhook) what.push("the webhook's, generated");
  if (a.simulator) what.push("the simulator's login");
  return what.join(', ');
}

function onServer(a: InitAnswers): boolean {
  return a.simulator === null && path.dirname(a.configFile) === path.dirname(SERVER.configFile);
}

/** `--config FILE` unless docsync finds the file by itself from here (config-location.ts). */
function configFlag(a: InitAnswers, cwd: string): string {
  const found = [path.resolve(cwd, LOCAL_CONFIG_PATH)];
  if (!existsSync(found[0]!)) found.push(SERVER.configFile);
  return found.includes(a.configFile) ? '' : ` --config ${a.configFile}`;
}

function secretSteps(a: InitAnswers): Step[] {
  if (a.clientSecret !== null) return [];
  const env = envFileOf(a.configFile);
  return [
    {
      say: `Write the client secret of the ${a.target} registration into ${env} (DOCSYNC_CLIENT_SECRET=…).`,
    },
  ];
}

function webhookSteps(a: InitAnswers): Step[] {
  if (!a.webhook || a.simulator) return [];
  const env = envFileOf(a.configFile);
  return [
    {
      say: `Register the webhook with the service: a URL it can reach that leads to http://${a.webhook.listen}/webhooks/document-change (a proxy; set webhook.publicUrl to that URL), the client code ${a.webhook.clientCode}, and the secret DOCSYNC_WEBHOOK_SECRET in ${env}.`,
    },
  ];
}

function localSteps(a: InitAnswers, ctx: ReportContext): Step[] {
  const run = `${ctx.self}${configFlag(a, ctx.cwd)}`;
  const login: Step[] = a.simulator
    ? []
    : [{ run: `${run} auth login`, why: 'authorise docsync with the service' }];
  return [
    ...secretSteps(a),
    ...webhookSteps(a),
    ...login,
    {
      run: `${run} check`,
      why: `every line ok: the service, the login, the folder${a.webhook ? ', the webhook' : ''}`,
    },
    { run: `${run} run --once`, why: `the first sync (it only pulls) into ${a.storeRoot}` },
    {
      run: `${run} run`,
      why: `the daemon, until Ctrl+C; its status page: http://${a.statusListen}`,
    },
  ];
}

function serverSteps(a: InitAnswers, prepared: Prepared, ctx: ReportContext): Step[] {
  const as = `sudo -u ${ctx.user} ${ctx.self}`;
  const firm = path.basename(a.configFile, '.json');
  const single = firm === path.basename(SERVER.configFile, '.json');
  const unit = single ? 'docsync' : `docsync@${firm}`;
  const env = envFileOf(a.configFile);
  const steps: Step[] = [...secretSteps(a)];
  for (const { dir, reason } of prepared.notMade) {
    steps.push({
      run: `sudo install -d -o ${ctx.user} -g ${ctx.user} -m 2770 ${dir}`,
      why: `init could not make it (${reason})`,
    });
  }
  if (!prepared.owner) {
    steps.push(
      {
        run: `sudo useradd --system --home-dir ${SERVER.stateDir} --shell /usr/sbin/nologin ${ctx.user}`,
        why: 'unless the user is there',
      },
      {
        run: `sudo chown ${ctx.user}: ${path.dirname(a.statePath)} ${a.storeRoot} && sudo chgrp ${ctx.user} ${env} && sudo chmod 0640 ${env}`,
        why: "the daemon's own (init, not run as root, could not)",
      },
    );
  }
  const names = single
    ? ['docsync.service', 'docsync-catchup.service', 'docsync-catchup.timer']
    : ['docsync@.service'];
  const files = names.map((f) => path.join(ctx.packageDir, 'systemd', f)).join(' ');
  steps.push({
    run: `sudo cp ${files} /etc/systemd/system/ && sudo systemctl daemon-reload`,
    why: 'the units',
  });
  const unitStore = path.join(SERVER.storeParent, single ? SERVER.defaultStoreName : firm);
  if (a.storeRoot !== unitStore) {
    steps.push({
      say: `The unit lets docsync write ${unitStore}; for ${a.storeRoot}, run sudo systemctl edit ${unit} and add: [Unit] RequiresMountsFor=${a.storeRoot} and [Service] ReadWritePaths=${a.storeRoot}`,
    });
  }
  steps.push(
    ...webhookSteps(a),
    { run: `${as} auth login`, why: 'authorise docsync (without a browser here, it says how)' },
    { run: `${as} check`, why: 'every line ok, or a warning that says why' },
    { run: `${as} run --once --dry-run`, why: 'what the first sync (it only pulls) would do' },
    {
      run: `sudo systemctl enable --now ${unit}`,
      why: `the daemon; its status page: http://${a.statusListen} on this machine (ssh -L)`,
    },
  );
  return steps;
}
