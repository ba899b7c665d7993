/**
 * `docsync open <company|trust> <id or name>`: prints the deep link to the entity's documents
 * in the service. The state database answers first (no network, works while the service is
 * down); only an entity docsync has not synced yet is looked up in the service's list.
 */

import { type App, openApp } from '../compose.js';
import { entityDeepLink } from '../domain/deep-links.js';
import { DocsyncError } from '../domain/errors.js';
import { type EntityMatch, findEntity } from '../domain/find-entity.js';
import type { Entity, OwnerKind } from '../domain/types.js';
import type { GlobalOptions } from './index.js';
import type { Terminal } from './terminal.js';

export interface OpenCommandOptions extends GlobalOptions {
  readonly kind: string;
  readonly idOrName: string;
}

export async function openCommand(options: OpenCommandOptions, terminal: Terminal): Promise<void> {
  const kind = options.kind as OwnerKind;
  // It reads what docsync synced: a mistyped state.path must not make an empty state.
  const app = openApp(terminal, {
    config: options.config,
    logLevel: options.logLevel,
    logToStderr: true,
    existingState: true,
  });
  try {
    const local = app.state.entities
      .list()
      .map((record) => record.entity)
      .filter((entity) => entity.kind === kind);
    let match = findEntity(local, options.idOrName);
    if (match.kind === 'none') match = await findInService(app, kind, options.idOrName);
    const entity = chosen(match, kind, options.idOrName);
    terminal.stdout.write(`${entityDeepLink(app.config.service.webUrl, entity)}\n`);
  } finally {
    app.close();
  }
}

async function findInService(app: App, kind: OwnerKind, query: string): Promise<EntityMatch> {
  const listed: Entity[] = [];
  const list = kind === 'company' ? app.remote.client.companies() : app.remote.client.trusts();
  // A record docsync cannot read is no entity to open (`docsync status` names it).
  for await (const entry of list) if (!('malformed' in entry)) listed.push(entry);
  return findEntity(listed, query);
}

function chosen(match: EntityMatch, kind: OwnerKind, query: string): Entity {
  if (match.kind === 'one') return match.entity;
  if (match.kind === 'none') {
    throw new DocsyncError('ENTITY_NOT_FOUND', `No ${kind} has the id or name "${query}".`);
  }
  const lines = match.candidates.map((e) => `  - ${e.id}  ${e.name}`);
  throw new DocsyncError(
    'ENTITY_AMBIGUOUS',
    `"${query}" matches ${match.candidates.length} ${kind === 'company' ? 'companies' : 'trusts'}; name one by id:\n${lines.join('\n')}`,
  );
}
