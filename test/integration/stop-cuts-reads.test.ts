/**
 * What a stop does to requests already on the wire: a read is cut the moment docsync stops
 * (nothing waits on its answer, and what it read is read again next time), while a write keeps
 * the grace, so a push the service answers within it is not left in doubt. The service holds
 * both answers until the test lets them go, and the grace is a minute: only the stop itself can
 * end the read, and only the answer can end the write.
 */
import { describe, expect, it } from 'vitest';
import { RunStoppedError } from '../../src/domain/errors.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { collectRead, useRemote } from '../helpers/remote.js';

const start = useRemote();

describe('a stop with requests on the wire', () => {
  it('cuts a read at once and lets a write get its answer within the grace', async () => {
    const { sim, remote } = await start({ seed: 'demo' });
    const { client, queue } = remote;
    const company = (await collectRead(client.companies()))[0]!;
    const owner: OwnerRef = { kind: 'company', id: company.id };
    sim.admin.holdAnswers({ method: 'GET', template: '/companies/{companyId}' });
    sim.admin.holdAnswers({ method: 'POST', template: '/companies/{ownerId}/documents' });
    const read = client.company(company.id);
    const write = client.createDocument(owner, { name: 'Minutes', documentDate: '2026-11-01' });
    let wrote = false;
    void write.then(() => (wrote = true)).catch(() => undefined);
    await expect.poll(() => sim.admin.heldAnswers()).toBe(2);

    queue.stop(60_000);
    await expect(read).rejects.toBeInstanceOf(RunStoppedError);
    expect(wrote).toBe(false);

    sim.admin.releaseAnswers();
    await expect(write).resolves.toMatchObject({ owner, name: 'Minutes' });
  });

  it('leaves a create in doubt, never unsent, when the stop cuts the read of its change time', async () => {
    // The public pages' reading: a document's details carry no change time, so a create reads
    // it from the owner's list, after the service has made the document.
    const { sim, remote } = await start({ seed: 'demo', profile: 'public-docs' });
    const { client, queue } = remote;
    const company = (await collectRead(client.companies()))[0]!;
    const owner: OwnerRef = { kind: 'company', id: company.id };
    sim.admin.holdAnswers({ method: 'GET', template: '/companies/{ownerId}/documents' });
    const made = client.createDocument(owner, { name: 'Minutes', documentDate: '2026-11-01' });
    await expect.poll(() => sim.admin.heldAnswers()).toBe(1);

    queue.stop(60_000);
    const stopped = await made.catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect(stopped).toMatchObject({ mayHaveApplied: true });
    expect(sim.admin.documents().filter((d) => d.name === 'Minutes')).toHaveLength(1);
    sim.admin.releaseAnswers();
  });
});
