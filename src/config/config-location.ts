/**
 * Where docsync finds its configuration and its secrets, the same for every command:
 *
 * 1. `--config FILE`, else `DOCSYNC_CONFIG`: the file named, whether or not it is there;
 * 2. `config/docsync.json` in the working directory (a clone, `docsync init --for simulator`);
 * 3. `/etc/docsync/docsync.json` (an installed docsync; `docsync init --for staging|production`).
 *
 * The secrets sit beside the file, in the environment file of the same name (`docsync.env`),
 * which systemd reads for the units (`EnvironmentFile=`) and docsync reads for a command run
 * by hand, so `sudo -u docsync docsync check` sees what the daemon sees.
 */
import path from 'node:path';

export const LOCAL_CONFIG_PATH = 'config/docsync.json';

/** The server layout the units in systemd/ and `docsync init` share. */
export const SERVER = {
  configFile: '/etc/docsync/docsync.json',
  /** The units' `StateDirectory=docsync`; each firm of `docsync@.service` gets a folder in it. */
  stateDir: '/var/lib/docsync',
  /** Where each firm's documents go: `compliance` for `docsync.service`, the firm's name else. */
  storeParent: '/srv/documents',
  defaultStoreName: 'compliance',
  /** Where `npm install -g` puts the command (Node from nodejs.org or NodeSource). */
  bin: '/usr/local/bin/docsync',
  user: 'docsync',
  /**
   * The units' `UMask=`: what docsync writes into the store can be edited by the folder's group
   * (the people who share it) and is hidden from everyone else.
   */
  umask: '0007',
} as const;

export interface ConfigLocation {
  /** The file to read, as given or found (relative to the working directory, or absolute). */
  readonly file: string;
  /** Named by `--config` or `DOCSYNC_CONFIG`; false when found (or not) in the default places. */
  readonly named: boolean;
}

export function locateConfig(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  options: { readonly cwd: string; readonly exists: (file: string) => boolean },
): ConfigLocation {
  const named = flag ?? (env.DOCSYNC_CONFIG === '' ? undefined : env.DOCSYNC_CONFIG);
  if (named !== undefined) return { file: named, named: true };
  if (options.exists(path.resolve(options.cwd, LOCAL_CONFIG_PATH)))
    return { file: LOCAL_CONFIG_PATH, named: false };
  if (options.exists(SERVER.configFile)) return { file: SERVER.configFile, named: false };
  return { file: LOCAL_CONFIG_PATH, named: false };
}

/**
 * How a message made without the file's name (the schema's) says where a secret goes; loading
 * puts the environment file's path in its place (load-config.ts), `acme.env` beside `acme.json`.
 */
export const ENV_FILE_BESIDE = 'the environment file beside the configuration';

/** `docsync.json` → `docsync.env` beside it; a name without `.json` gets `.env` added. */
export function envFileOf(configFile: string): string {
  return configFile.endsWith('.json') ? `${configFile.slice(0, -5)}.env` : `${configFile}.env`;
}

/** The sentence for a configuration that is nowhere: what was looked at, and `docsync init`. */
export function missingConfigMessage(location: ConfigLocation, cwd: string): string {
  if (location.named) {
    return (
      `the configuration file ${location.file} does not exist; write one there with ` +
      `\`docsync init --config ${location.file}\`, or name the right file (--config, DOCSYNC_CONFIG)`
    );
  }
  return (
    `no configuration file: neither ${LOCAL_CONFIG_PATH} (in ${cwd}) nor ${SERVER.configFile} ` +
    'exists, and neither --config nor DOCSYNC_CONFIG names one; run `docsync init` to write one ' +
    '(it asks what it needs; `docsync init --help` shows the choices)'
  );
}
