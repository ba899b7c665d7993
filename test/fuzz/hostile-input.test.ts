/**
 * Bad input from the service: hostile names (path escapes, reserved and illegal names, huge
 * names) and answers corrupted in transit (missing fields, wrong types, garbage JSON, cut
 * bodies). docsync never writes outside its root, never fails with anything but its own typed
 * errors, reports what it could not take, and converges once the service answers well again.
 */

import { readdirSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REAL_CLOCK } from '../../src/domain/clock.js';
import { DocsyncError } from '../../src/domain/errors.js';
import { runCycle } from '../../src/engine/run-cycle.js';
import { createRemote } from '../../src/remote/create-client.js';
import { seededRandom } from '../../src/simulator/random.js';
import { expectInSync } from '../helpers/sync-assertions.js';
import { useSyncHarness } from '../helpers/sync-harness.js';

const start = useSyncHarness();
/** Seeds run in CI; FUZZ_SEED=n runs one other. */
const SEEDS = process.env.FUZZ_SEED ? [Number(process.env.FUZZ_SEED)] : [1, 2, 3, 4];
/** Fields the contract requires of documents, companies and trusts. */
const REQUIRED = new Set([
  'id',
  'name',
  'documentDate',
  'lastUpdatedTimestamp',
  'status',
  'attachments',
]);

/** A value whose JSON type the field cannot have. */
function pickWrong(current: unknown, rng: () => number): unknown {
  const choices = Array.isArray(current)
    ? ['x', 12, {}]
    : typeof current === 'object' && current !== null
      ? ['x', 12, []]
      : [[], {}, true];
  return choices[Math.floor(rng() * choices.length)];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const ILLEGAL = /[<>:"\\|?*\u0000-\u001f]|[. ]$|^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

/** The entries beside the store root (the root itself left out: the first sync creates it). */
const besideRoot = (root: string) =>
  new Set(readdirSync(path.dirname(root)).filter((n) => n !== path.basename(root)));

/** Every file and folder below `dir`, relative, `/`-separated. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? [rel, ...walk(path.join(dir, e.name), rel)] : [rel];
  });
}

describe('hostile input (fuzz)', () => {
  it('keeps every hostile remote name inside the root, legal on every platform', async () => {
    const h = await start({ seed: null });
    const company = h.sim.admin.createCompany({ name: '../../../etc', number: '123456789' });
    const trust = h.sim.admin.createTrust({ name: 'CON', abn: null });
    const hostile = [
      '../../escape',
      '/etc/passwd',
      'a/b\\c',
      '..',
      'nul.txt',
      'trailing dot.',
      'ctrl\u0001\u001f',
      'é'.repeat(150),
      '<>:"|?*',
      ' ',
    ];
    for (const [i, name] of hostile.entries()) {
      const owner =
        i % 2
          ? { kind: 'trust' as const, id: String(trust.id) }
          : { kind: 'company' as const, id: String(company.id) };
      const doc = h.sim.admin.createDocument({ owner, name, documentDate: '2024-01-01' });
      h.sim.admin.addAttachment(String(doc.id), { name, bytes: `bytes of ${i}` });
      h.sim.admin.addAttachment(String(doc.id), { name: name.toUpperCase(), bytes: `upper ${i}` });
    }
    const outside = besideRoot(h.root);
    const report = await h.sync();
    expect(h.state.problems.list().map((p) => p.reason)).toEqual([]);
    expect(report.result).toBe('ok');

    expect(besideRoot(h.root)).toEqual(outside);
    for (const rel of walk(h.root)) {
      for (const segment of rel.split('/')) {
        expect(segment, rel).not.toMatch(ILLEGAL);
        expect(Buffer.byteLength(segment), rel).toBeLessThanOrEqual(200);
      }
    }
    await expectInSync(h);
  });

  describe('corrupted answers', () => {
    let proxy: Server | undefined;
    afterEach(() => proxy?.close());

    /** A real HTTP hop that corrupts a share of the JSON answers, seeded. */
    async function corrupting(target: string, seed: number, rate: () => number): Promise<string> {
      const rng = seededRandom(seed);
      const mutate = (body: string): string => {
        const roll = rng();
        if (roll < 0.2) return body.slice(0, Math.floor(body.length * rng()));
        if (roll < 0.35) return '<html>502 Bad Gateway</html>';
        try {
          const json = JSON.parse(body);
          const list = json.documents ?? json.companies ?? json.trusts;
          const item = Array.isArray(list) ? list[Math.floor(rng() * list.length)] : json;
          if (item && typeof item === 'object') {
            // Break the contract: drop a required field or give a field a wrong type. (A value
            // that is wrong but well-formed cannot be told from the truth by any client.)
            const keys = Object.keys(item);
            const key = keys[Math.floor(rng() * keys.length)]!;
            if (REQUIRED.has(key) && rng() < 0.4) delete item[key];
            else item[key] = pickWrong(item[key], rng);
          }
          if (rng() < 0.1 && Array.isArray(list)) json.total = 1e9;
          return JSON.stringify(json);
        } catch {
          return body;
        }
      };
      proxy = createServer((req, res) => {
        const up = httpRequest(
          `${target}${req.url}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (c: Buffer) => chunks.push(c));
            answer.on('end', () => {
              let body = Buffer.concat(chunks).toString();
              const json = (answer.headers['content-type'] ?? '').includes('json');
              if (json && !req.url?.startsWith('/oauth') && rng() < rate()) body = mutate(body);
              const headers = { ...answer.headers };
              delete headers['content-length'];
              res.writeHead(answer.statusCode ?? 502, headers);
              res.end(body);
            });
          },
        );
        up.on('error', () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    }

    it.each(SEEDS)(
      'fails only with its own errors, records what it could not take, then converges (seed %i)',
      async (seed) => {
        const h = await start({
          seed: { companies: 2, trusts: 2, documentsPerEntity: 4, attachmentsPerDocument: 2, seed },
        });
        let rate = 0.3;
        const remote = createRemote({
          time: REAL_CLOCK,
          // The simulator's link host is plain http on loopback: allowed only when listed.
          links: { hosts: [h.sim.linkUrl] },
          baseUrl: await corrupting(h.sim.apiUrl, seed, () => rate),
          clientId: h.sim.clientId,
          clientSecret: h.sim.clientSecret,
          scope: 'cas',
          tokenStore: h.state.tokens,
          requestsPerSecond: Number.POSITIVE_INFINITY,
          concurrency: 4,
          retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
        });
        const deps = { ...h.deps, remote: remote.client };
        const outside = besideRoot(h.root);
        const outcomes = { ok: 0, partial: 0, typedError: 0 };
        for (let round = 0; round < 12; round++) {
          // Both sides keep changing while the answers are bad.
          const doc = (await h.remote()).documents[round % 4];
          if (doc) h.sim.admin.assignStatus(doc.id, { typeId: [2, 3, 21][round % 3]! });
          try {
            const report = await runCycle(deps, {
              trigger: 'once',
              fullReconcile: round % 3 === 0,
            });
            outcomes[report.result === 'ok' ? 'ok' : 'partial']++;
          } catch (error) {
            expect(error, String(error)).toBeInstanceOf(DocsyncError);
            outcomes.typedError++;
          }
        }
        expect(besideRoot(h.root)).toEqual(outside);
        expect(outcomes.partial + outcomes.typedError, JSON.stringify(outcomes)).toBeGreaterThan(0);

        rate = 0;
        for (let i = 0; i < 3; i++) await runCycle(deps, { trigger: 'once', fullReconcile: true });
        await expectInSync(h);
      },
    );
  });
});
