/**
 * A Document Change message without `eventSubType` (the public pages do not say every message
 * carries one) at the level a user reaches: the simulator sends its webhooks so to `docsync
 * run`'s daemon, in this process; the daemon answers 200 and syncs the message's entity, so a
 * document added in the service reaches the folder without waiting for a round.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firmInStep, HOOK, NEVER } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const startDaemon = useInProcessDaemons();
const startSim = useSimulators();

describe('a webhook without eventSubType', () => {
  it('is answered 200 and syncs its entity: a new document reaches the folder', async () => {
    const dir = tempDir();
    const firm = await firmInStep(
      startSim,
      dir,
      { companies: 1, trusts: 0, documentsPerEntity: 1, attachmentsPerDocument: 1, seed: 3 },
      { sim: { shapes: { webhookSubType: false } } },
    );
    const { sim, root, env } = firm;
    // Only the webhook can start a sync: no round, and no sweep of the unlodged list (it too
    // would find the new company document).
    const config = firm.config({ schedule: { ...NEVER, unlodgedSweepShare: 0 } });
    const daemon = startDaemon(config, env);
    await daemon.started;
    await eventually(() => daemon.output().includes('poll round finished'));
    sim.admin.setWebhook({ url: daemon.url('webhook receiver listening'), ...HOOK });
    const company = (await sim.admin.dump()).companies[0]!;

    const added = sim.admin.createDocument({
      owner: { kind: 'company', id: String(company.id) },
      name: 'Letter of engagement',
      documentDate: '2026-11-20',
    });

    await eventually(() => sim.admin.webhookDeliveries().length > 0);
    const [delivery] = sim.admin.webhookDeliveries();
    expect(JSON.parse(delivery!.requestBody)).not.toHaveProperty('eventSubType');
    await eventually(() => sim.admin.webhookDeliveries()[0]?.status !== null);
    expect(sim.admin.webhookDeliveries()[0]?.status).toBe(200);
    const companies = path.join(root, 'Companies');
    const folders = () =>
      readdirSync(companies).flatMap((entity) => readdirSync(path.join(companies, entity)));
    await eventually(() => folders().some((name) => name.endsWith(`[${added.id}]`)), 30_000);
    expect(daemon.output()).toMatch(/"subType":null,[^\n]*"msg":"webhook event received"/);
  }, 60_000);
});
