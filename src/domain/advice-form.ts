/**
 * A command docsync advises, written so that it runs where the person reads it: the words that
 * start docsync there (`docsync` installed, `node dist/cli.js` in a clone), as the daemon's user
 * on a server (`sudo -u docsync …`: a command run as oneself there cannot read the secrets, and
 * one run as root makes a state database the daemon cannot open), and with the configuration it
 * was run with, unless docsync finds that file by itself. On a host of several firms a bare
 * `docsync check` acts on `docsync.json`, not on the firm the person asked about.
 *
 * Advice is made far from any terminal (an error of the state database, a line of `check`), so
 * a message names a command as `docsync <args>` in backticks, and the command that prints it
 * puts every such command into its form here (inAdviceForm); text a command writes itself names
 * them through adviceCommand. One rule for every command, every sentence.
 */

export interface AdviceForm {
  /** The words that start docsync here: `docsync`, `node dist/cli.js`. */
  readonly self: string;
  /** The daemon's user, when docsync's commands run as that user here (`sudo -u <user>`). */
  readonly user: string | null;
  /** The configuration to name with `--config`; null when docsync finds it by itself. */
  readonly config: string | null;
}

/** docsync as installed, on the configuration it finds by itself: advice as it is written. */
export const PLAIN_ADVICE: AdviceForm = { self: 'docsync', user: null, config: null };

/** Commands that read no configuration: the simulator and the demo bring their own. */
const WITHOUT_CONFIG = new Set(['simulator', 'demo']);

/** `docsync <args>` in the form that runs here (`args`: `check`, `auth login --code <the code>`). */
export function adviceCommand(form: AdviceForm, args: string): string {
  const rest = args.trim();
  const command = /^\S*/.exec(rest)?.[0] ?? '';
  if (WITHOUT_CONFIG.has(command)) return join(form.self, rest);
  // `init` writes the configuration (and, on a server, as root): it names the file itself.
  if (command === 'init') return join(form.user ? `sudo ${form.self}` : form.self, rest);
  const as = form.user ? `sudo -u ${form.user} ${form.self}` : form.self;
  const named = form.config !== null && !namesConfig(rest);
  return join(named ? `${as} --config ${shellWord(form.config!)}` : as, rest);
}

/** Every `` `docsync …` `` in `text`, in the form that runs here. */
export function inAdviceForm(text: string, form: AdviceForm): string {
  if (form === PLAIN_ADVICE) return text;
  return text.replace(/`docsync(?:\s([^`]*))?`/g, (_, args: string | undefined) => {
    return `\`${adviceCommand(form, args ?? '')}\``;
  });
}

function namesConfig(args: string): boolean {
  return /(^|\s)(--config|-c)(\s|=|$)/.test(args);
}

function join(start: string, rest: string): string {
  return rest === '' ? start : `${start} ${rest}`;
}

/**
 * A path as a shell reads it back: bare when plain, else in single quotes, inside which no shell
 * expands anything (`$`, backticks and `!` would, inside double quotes); a `'` is closed, escaped
 * and reopened.
 */
export function shellWord(text: string): string {
  return /[\s"'$`\\!*?[\]{}()<>|&;#~]/.test(text) ? `'${text.replaceAll("'", "'\\''")}'` : text;
}
