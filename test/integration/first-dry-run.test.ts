/**
 * `docsync run --once --dry-run` before the first sync, as the install steps give it: it shows
 * what the first sync would pull, writes nothing (no folder, no marker, no state of a sync),
 * and the first real run then does what it showed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();

describe('a dry run before the first sync', () => {
  it('shows the pulls of the first sync and changes nothing', async () => {
    const h = await start({ seed: null });
    const company = h.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    const owner = { kind: 'company' as const, id: String(company.id) };
    const minutes = h.sim.admin.createDocument({
      owner,
      name: 'Minutes',
      documentDate: '2024-06-30',
    });
    h.sim.admin.addAttachment(String(minutes.id), { name: 'minutes.pdf', bytes: 'signed' });

    const dry = await h.cli(['run', '--once', '--dry-run']);

    expect(dry.stderr).not.toContain('safety rail');
    expect(dry.code, dry.stderr + dry.stdout).toBe(0);
    expect(dry.stdout).toContain(
      `download new document ${minutes.id} (Minutes) with 1 attachment(s)`,
    );
    expect(existsSync(path.join(h.root, '.docsync-root'))).toBe(false);
    expect(h.tree().size).toBe(0);
    const routes = Object.keys(h.sim.admin.counters().api.byRoute);
    // Reads only (a sign-in's token refresh aside): nothing is sent to the service.
    expect(routes.filter((r) => !r.startsWith('GET ') && !r.includes('/oauth/'))).toEqual([]);

    const real = await h.cli(['run', '--once']);
    expect(real.code).toBe(0);
    expect([...h.tree().keys()].some((p) => p.endsWith('/minutes.pdf'))).toBe(true);
    expect(existsSync(path.join(h.root, '.docsync-root'))).toBe(true);
  });

  it("shows a new company's documents without making its folder", async () => {
    const h = await start({ seed: null });
    h.sim.admin.createCompany({ name: 'Acme Pty Ltd' });
    expect((await h.sync()).result).toBe('ok');
    const before = [...h.tree().keys()];
    const newco = h.sim.admin.createCompany({ name: 'Newco Pty Ltd' });
    const letter = h.sim.admin.createDocument({
      owner: { kind: 'company', id: String(newco.id) },
      name: 'Letter',
    });

    const dry = await h.cli(['run', '--once', '--dry-run']);

    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`download new document ${letter.id} (Letter)`);
    expect([...h.tree().keys()]).toEqual(before);
  });
});
