/**
 * What `docsync init` says when it is done: what it wrote and made, then the commands to run
 * next, in the form every advice of docsync takes (domain/advice-form.ts): as they run from here
 * (`node dist/cli.js` in a clone, `docsync` installed), with `--config` unless docsync finds the
 * file by itself, and, on a server, as the daemon's user with the units of the package.
 */
import path from 'node:path';
import { envFileOf, SERVER } from '../config/config-location.js';
import type { InitAnswers } from '../config/init-plan.js';
import { type AdviceForm, adviceCommand } from '../domain/advice-form.js';

export interface Prepared {
  /** The folders and the secrets' file were given to the daemon's user. */
  readonly owner: boolean;
  readonly made: readonly string[];
  readonly notMade: readonly { readonly dir: string; readonly reason: string }[];
}

export interface ReportContext {
  /**
   * How to run docsync from here (self-command.ts), and the `--config` of the file init wrote,
   * null where docsync finds it by itself (advice-here.ts); its `user` is not used: init's
   * `--user` is the daemon's.
   */
  readonly advice: AdviceForm;
  /** The installed package (its systemd/ units). */
  readonly packageDir: string;
  readonly user: string;
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
  // Run as oneself: what root made for the daemon's user is the server's case.
  const form: AdviceForm = { ...ctx.advice, user: null };
  const run = (args: string) => adviceCommand(form, args);
  const login: Step[] = a.simulator
    ? []
    : [{ run: run('auth login'), why: 'authorise docsync with the service' }];
  return [
    ...secretSteps(a),
    ...webhookSteps(a),
    ...login,
    {
      run: run('check'),
      why: `a line each (the service, the login, the folder${a.webhook ? ', the webhook' : ''}): ok, or why not`,
    },
    { run: run('run --once'), why: `the first sync (it only pulls) into ${a.storeRoot}` },
    {
      run: run('run'),
      why: `the daemon, until Ctrl+C; its status page: http://${a.statusListen}`,
    },
  ];
}

function serverSteps(a: InitAnswers, prepared: Prepared, ctx: ReportContext): Step[] {
  // As the daemon's user, on this firm's configuration (a host may hold several).
  const form: AdviceForm = { ...ctx.advice, user: ctx.user };
  const as = (args: string) => adviceCommand(form, args);
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
  // The unit these steps enable; the nightly catch-up instead of the daemon is docs/operating.md's.
  const file = path.join(
    ctx.packageDir,
    'systemd',
    single ? 'docsync.service' : 'docsync@.service',
  );
  steps.push({
    run: `sudo cp ${file} /etc/systemd/system/ && sudo systemctl daemon-reload`,
    why: 'the unit',
  });
  const unitStore = path.join(SERVER.storeParent, single ? SERVER.defaultStoreName : firm);
  if (a.storeRoot !== unitStore) {
    steps.push({
      say: `The unit lets docsync write ${unitStore}; for ${a.storeRoot}, run sudo systemctl edit ${unit} and add: [Unit] RequiresMountsFor=${a.storeRoot} and [Service] ReadWritePaths=${a.storeRoot}`,
    });
  }
  steps.push(
    ...webhookSteps(a),
    { run: as('auth login'), why: 'authorise docsync (without a browser here, it says how)' },
    { run: as('check'), why: 'a line each: ok, or why not' },
    { run: as('run --once --dry-run'), why: 'what the first sync (it only pulls) would do' },
    {
      run: `sudo systemctl enable --now ${unit}`,
      why: `the daemon; its status page: http://${a.statusListen} on this machine (ssh -L)`,
    },
  );
  return steps;
}
