/**
 * What `docsync conflicts`, `trash` and `deletes` run on: the configuration, the state database
 * (opened as it is, never created: a mistyped `state.path` must not look like "nothing held")
 * and the folder. No client of the service: these commands change the folder and the state,
 * and the next sync carries the changes over. They work beside a running daemon.
 */
import { loadConfig } from '../config/load-config.js';
import type { OwnerRef } from '../domain/types.js';
import { entityLabel } from '../domain/words.js';
import { FsLocalStore } from '../local/fs-local-store.js';
import type { OperatorDeps } from '../operator/operator-deps.js';
import { explainStateFailure } from '../state/state-failure.js';
import { StateStore } from '../state/state-store.js';

/** Runs `use` on the operator's deps, and closes the state after, whatever happens. */
export async function withOperator<T>(
  configPath: string | undefined,
  use: (deps: OperatorDeps) => Promise<T> | T,
): Promise<T> {
  const config = loadConfig({ path: configPath });
  const file = config.state.path;
  const state = StateStore.open(file, { existing: true });
  try {
    const local = new FsLocalStore({
      root: config.store.root,
      ignore: [...config.ignore],
      settleSeconds: config.settleSeconds,
      metaCache: state.metaFiles,
    });
    return await use({
      state,
      local,
      webUrl: config.service.webUrl,
      onRemoteDelete: config.onRemoteDelete,
      now: Date.now,
    });
  } catch (error) {
    throw explainStateFailure(error, file);
  } finally {
    state.close();
  }
}

/** An entity as the lists name it: by its name, with the id the commands take. */
export function nameOf(deps: OperatorDeps): (owner: OwnerRef) => string {
  return (owner) => entityLabel(owner, deps.state.entities.get(owner)?.entity.name);
}

/** JSON on stdout, for scripts and `jq`. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(lines: readonly string[]): void {
  process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : '');
}
