/**
 * Health is "can docsync sync", not "is anything waiting for a person" (issue 27, case 9). While
 * a safety rail holds deletes, the cycles end `safety-stop` and `/healthz` stayed 503, so a
 * monitor paged as if docsync were down. Now it is 200 with what waits listed, and the metric
 * `docsync_attention_items` counts it by kind; 503 is kept for what stops all syncing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Entity, OwnerRef } from '../../src/domain/types.js';
import type { StateStore } from '../../src/state/state-store.js';
import type { RuntimeStatus } from '../../src/web/runtime-status.js';
import type { StatusServer } from '../../src/web/status-server.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { useStateStore } from '../helpers/state-store.js';
import { IDLE_RUNTIME, startTestStatusServer } from '../helpers/status-server.js';

const stateStore = useStateStore();
const servers: StatusServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const MINUTE = 60_000;

function company(state: StateStore, id: string, name: string): OwnerRef {
  const entity: Entity = { kind: 'company', id, name, number: null, businessNumber: null, raw: {} };
  state.entities.upsert({
    entity,
    folder: `Companies/${name}`,
    matchedBy: 'created',
    updatedAt: 0,
  });
  return { kind: 'company', id };
}

/** A daemon whose rail held three deletes: its cycles end `safety-stop`, and it syncs on. */
function railHeld(state: StateStore) {
  const acme = company(state, '1', 'Acme');
  state.heldDeletes.hold(
    ['10', '11', '12'].map((documentId) => ({
      owner: acme,
      documentId,
      side: 'remote' as const,
      folder: `Companies/Acme/doc ${documentId}`,
      documentName: `Document ${documentId}`,
      reason: 'more than safety.maxDeleteCount 2',
    })),
    Date.now() - 5 * MINUTE,
  );
  for (const ago of [20, 10, 1]) {
    const id = state.cycles.start({ trigger: 'cron', startedAt: Date.now() - ago * MINUTE - 500 });
    state.cycles.finish(id, {
      result: 'safety-stop',
      finishedAt: Date.now() - ago * MINUTE,
      error: 'would delete 3 documents in the service, more than safety.maxDeleteCount 2',
    });
  }
  state.conflicts.record({
    owner: acme,
    documentId: '13',
    copyPath: 'Companies/Acme/doc 13/a (conflict 2026-11-25 0930).pdf',
    winner: 'remote',
    occurredAt: Date.now(),
  });
}

async function serve(state: StateStore, runtime: Partial<RuntimeStatus> = {}) {
  const server = await startTestStatusServer(state, {
    runtime: () => ({ ...IDLE_RUNTIME, ...runtime }),
  });
  servers.push(server);
  const healthz = await fetch(`${server.url}/healthz`);
  return { server, status: healthz.status, body: (await healthz.json()) as any };
}

describe('/healthz and what needs a person (issue 27, case 9)', () => {
  it('is 200 while a rail holds deletes, with the list, and the metric counts it by kind', async () => {
    const state = stateStore.open();
    railHeld(state);

    const { server, status, body } = await serve(state);

    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'needs attention', healthy: true, reasons: [] });
    expect(body.attention).toEqual([
      {
        kind: 'held-deletes',
        count: 3,
        says: '3 deletes held by a safety rail wait for a decision',
        section: 'held',
      },
      { kind: 'conflicts', count: 1, says: '1 conflict to look at', section: 'conflicts' },
    ]);
    const metrics = parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
    expect(metrics.value('docsync_attention_items', { kind: 'held-deletes' })).toBe(3);
    expect(metrics.value('docsync_attention_items', { kind: 'conflicts' })).toBe(1);
    // Every kind is there from the start, so an alert on any of them can be written.
    expect(metrics.value('docsync_attention_items', { kind: 'items-in-error' })).toBe(0);
    expect(metrics.value('docsync_attention_items', { kind: 'not-synced' })).toBe(0);
  });

  it('is 503 when docsync cannot sync: the login is gone, whatever else waits', async () => {
    const state = stateStore.open();
    railHeld(state);
    const { status, body } = await serve(state, { tokenValid: false });
    expect(status).toBe(503);
    expect(body.status).toBe('unhealthy');
    expect(body.reasons).toEqual(['the service token is not valid; run `docsync auth login`']);
    expect(body.attention.map((a: { kind: string }) => a.kind)).toEqual([
      'held-deletes',
      'conflicts',
    ]);
  });

  it('gives a daemon its grace from its start, and a long first sync while the service answers', async () => {
    const state = stateStore.open();
    // Started 5 minutes ago, nothing finished yet: starting, not down.
    const starting = await serve(state, {
      daemon: { version: 'test', startedAt: Date.now() - 5 * MINUTE },
    });
    expect(starting.status).toBe(200);
    // Two hours into a first sync that has not finished a cycle, the service answering.
    state.cycles.start({ trigger: 'cron', startedAt: Date.now() - 120 * MINUTE });
    const syncing = await serve(state, {
      daemon: { version: 'test', startedAt: Date.now() - 121 * MINUTE },
      lastServiceAnswerAt: Date.now() - 2_000,
    });
    expect(syncing.status).toBe(200);
    // The same, but the service has not answered for an hour: it cannot sync.
    const cut = await serve(state, {
      daemon: { version: 'test', startedAt: Date.now() - 121 * MINUTE },
      lastServiceAnswerAt: Date.now() - 60 * MINUTE,
    });
    expect(cut.status).toBe(503);
    expect(cut.body.reasons).toEqual([
      'no sync has reached the service for 121 min (limit 30 min)',
    ]);
  });
});
