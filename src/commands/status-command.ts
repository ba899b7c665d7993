/**
 * `docsync status [--json]`: what the state database says, without touching the service or the
 * folder, so it answers instantly even while the daemon is busy.
 */

import { loadConfig } from '../config/load-config.js';
import { inAdviceForm } from '../domain/advice-form.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { entityLabel, plural } from '../domain/words.js';
import { openState } from '../state/open-state.js';
import { explainStateFailure } from '../state/state-failure.js';
import type { StatusReport } from '../state/status-report.js';
import { adviceFormHere } from './advice-here.js';
import type { Terminal } from './terminal.js';

export async function statusCommand(
  options: { config?: string | undefined; json?: boolean },
  terminal: Terminal,
): Promise<void> {
  const config = loadConfig({ path: options.config, env: terminal.env, cwd: terminal.cwd });
  const state = openState(config, { existing: true });
  try {
    const report = state.statusReport();
    terminal.stdout.write(
      options.json
        ? `${JSON.stringify(report, null, 2)}\n`
        : inAdviceForm(
            renderStatus(report, config.state.path),
            adviceFormHere(terminal, options.config),
          ),
    );
  } catch (error) {
    // Damage the open did not reach (a page deep in a table): the same sentence, no stack.
    throw explainStateFailure(error, config.state.path);
  } finally {
    state.close();
  }
}

export function renderStatus(report: StatusReport, statePath: string): string {
  const names = new Map(report.entities.map((e) => [ownerKey(e.owner), e.name]));
  // Each entity by its name, with the id the other commands take.
  const label = (owner: OwnerRef) => entityLabel(owner, names.get(ownerKey(owner)));
  const lines = [`docsync status (${statePath})`];
  const last = report.lastCycle;
  lines.push(
    last
      ? `Last cycle: ${last.result ?? 'running'} (${last.trigger}), started ${last.startedAt}${last.error ? ` — ${last.error}` : ''}`
      : 'Last cycle: none yet',
  );
  if (!report.initialSyncDone)
    lines.push('Initial sync: not done yet (the first run is pull-only).');
  lines.push(`Entities: ${report.entities.length}`);
  for (const e of report.entities) {
    const lag = e.lagMs === null ? 'never synced' : `synced ${formatAge(e.lagMs)} ago`;
    lines.push(
      `  ${label(e.owner)}: ${lag}, cursor ${e.cursor ?? '-'}${e.lastError ? `, error: ${e.lastError}` : ''}`,
    );
  }
  lines.push(...localWorkLines(report.localWork, label));
  lines.push(...syncsWaitingLines(report.syncsWaiting, label));
  const p = report.pushes;
  lines.push(`Pending pushes: ${p.pending} (in doubt ${p.inDoubt}, failed ${p.failed})`);
  for (const f of p.failedItems)
    lines.push(
      `  ${f.kind} ${label(f.owner)}${f.documentId ? ` document ${f.documentId}` : ''}: ${f.lastError ?? ''}`,
    );
  const inHold = report.heldDeletes.filter((h) => h.waitingUntil !== null && !h.decision);
  const held = report.heldDeletes.filter((h) => !inHold.includes(h));
  lines.push(`Held deletes: ${held.length}`);
  for (const h of held) {
    const what = h.side === 'local' ? 'to the trash' : 'in the service';
    const decided = h.decision ? ` [${h.decision === 'approve' ? 'approved' : 'discarded'}]` : '';
    lines.push(`  ${h.documentId} ${label(h.owner)} ${h.folder}: delete ${what}${decided}`);
  }
  if (held.some((h) => h.decision === null))
    lines.push('  decide with `docsync deletes approve|discard` (also while the daemon runs)');
  if (inHold.length > 0) {
    lines.push(`Deletes in their hold time: ${inHold.length} (safety.deleteHoldSeconds)`);
    for (const h of inHold)
      lines.push(
        `  ${h.documentId} ${h.folder}: removed; delete in the service waits until ${h.waitingUntil}`,
      );
    lines.push('  putting a folder back before then cancels its delete');
  }
  lines.push(`Open conflicts: ${report.conflicts.total}`);
  for (const c of report.conflicts.recent)
    lines.push(
      `  ${c.id} ${c.occurredAt} ${label(c.owner)} ${c.copyPath} (${c.winner} won)${c.detail ? `: ${c.detail}` : ''}`,
    );
  if (report.conflicts.total > 0)
    lines.push('  resolve with `docsync conflicts resolve <id> keep-mine|keep-theirs|keep-both`');
  lines.push(`Items in error: ${report.itemsInError.length}`);
  for (const i of report.itemsInError) {
    lines.push(
      `  ${label(i.owner)} ${i.path ?? i.documentId ?? ''}: ${i.reason} (attempt ${i.attempts}, next ${i.nextAttemptAt})`,
    );
  }
  if (report.recordsInError.length > 0) {
    lines.push(`Records of the service in error: ${report.recordsInError.length}`);
    for (const r of report.recordsInError)
      lines.push(
        `  ${r.level === 'error' ? 'skipped' : 'warning'}: ${r.reason} (since ${r.firstSeenAt})`,
      );
  }
  lines.push(`Unmatched local folders: ${report.unmatchedFolders.length}`);
  for (const u of report.unmatchedFolders) lines.push(`  ${u.folder} (${u.kind}): ${u.reason}`);
  lines.push(`Not synced: ${report.notSynced.length}`);
  for (const n of report.notSynced) lines.push(`  ${n.path}: ${n.reason} (since ${n.firstSeenAt})`);
  return `${lines.join('\n')}\n`;
}

/**
 * Files a stop left in the folder are no pushes yet: without these lines the status said
 * "Pending pushes: 0" while hundreds waited for their upload.
 */
function localWorkLines(work: StatusReport['localWork'], label: (owner: OwnerRef) => string) {
  if (work.entities === 0) return ['Local changes waiting: none'];
  const lines = [
    `Local changes waiting: ${plural(work.files, 'file')} in ${plural(work.documents, 'document')} of ${plural(work.entities, 'entity')}, found since ${work.since}; each entity's sync sends them, in the watcher's lane`,
  ];
  for (const item of work.items)
    lines.push(
      `  ${label(item.owner)}: ${plural(item.documents, 'document')}, ${plural(item.files, 'file')}`,
    );
  const more = work.entities - work.items.length;
  if (more > 0) lines.push(`  and ${plural(more, 'more entity')}`);
  return lines;
}

/**
 * Syncs asked for and not done: a sync that failed (the service down, a folder unreadable) is
 * tried again on its own after a wait, and says here why it failed and when it is tried next.
 */
function syncsWaitingLines(
  work: StatusReport['syncsWaiting'],
  label: (owner: OwnerRef) => string,
): string[] {
  const failing = work.failingEntities;
  const lines = [
    `Syncs waiting: ${work.entities === 0 ? 'none' : plural(work.entities, 'entity')}${failing > 0 ? ` (${failing} failing)` : ''}`,
  ];
  for (const f of work.failing)
    lines.push(
      `  ${label(f.owner)}: failed ${plural(f.attempts, 'time')}${f.lastError ? ` (${f.lastError})` : ''}; tried again at ${f.nextAttemptAt}`,
    );
  const more = failing - work.failing.length;
  if (more > 0) lines.push(`  and ${plural(more, 'more entity')}`);
  return lines;
}

function formatAge(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
