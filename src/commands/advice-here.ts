/**
 * The form of the commands a command advises (domain/advice-form.ts), from where it runs: how
 * docsync is started on this terminal (self-command.ts), the configuration it was run with
 * (`--config`, `DOCSYNC_CONFIG`), named unless docsync would find that same file without either
 * (`sudo` drops the environment, and another shell has no `DOCSYNC_CONFIG`), and, for a
 * configuration in the server's folder (/etc/docsync), the daemon's user the units run as.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { locateConfig, SERVER } from '../config/config-location.js';
import type { AdviceForm } from '../domain/advice-form.js';
import { selfOn } from './self-command.js';
import type { Terminal } from './terminal.js';

export function adviceFormHere(
  terminal: Pick<Terminal, 'script' | 'cwd' | 'env'>,
  configFlag: string | undefined,
  exists: (file: string) => boolean = existsSync,
): AdviceForm {
  return {
    self: selfOn(terminal),
    ...configAdvice(configFlag, terminal, exists),
  };
}

/** The `--config` and the user of the advice for the configuration `flag` (or the env) names. */
export function configAdvice(
  flag: string | undefined,
  where: Pick<Terminal, 'cwd' | 'env'>,
  exists: (file: string) => boolean = existsSync,
): Pick<AdviceForm, 'config' | 'user'> {
  const { cwd } = where;
  const used = path.resolve(cwd, locateConfig(flag, where.env, { cwd, exists }).file);
  const found = path.resolve(cwd, locateConfig(undefined, {}, { cwd, exists }).file);
  const server = path.dirname(used) === path.dirname(SERVER.configFile);
  return { config: used === found ? null : used, user: server ? SERVER.user : null };
}
