/**
 * Links are fetched only where links may live (issue 33, case 4), at the level a user reaches:
 * the daemon as `docsync run` assembles it, and `docsync run --once`, against the simulator,
 * whose service hands out links elsewhere (`setLinks`): to the daemon's own status page on
 * loopback, in IPv4-mapped form too, or through a 302 from its link host. Nothing answered there
 * ever becomes a file in the folder; the attachment is in error with the host and the rule, and
 * the rest of the firm syncs. Unlisted, a plain-http link host (the simulator's own) is refused
 * as well; listed, it serves every download as before.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { writeCliConfig } from '../helpers/cli-config.js';
import { documentFolderOf } from '../helpers/daemon-firm.js';
import { useInProcessDaemons } from '../helpers/daemon-in-process.js';
import { eventually } from '../helpers/daemon-process.js';
import { freePort } from '../helpers/free-port.js';
import { runCli } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulator.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir('docsync-links-');
const startSim = useSimulators();
const startDaemon = useInProcessDaemons();

const MINUTES = '%PDF-1.4 the minutes, signed';

/** Acme with the Minutes (one PDF) and a Letter (no file): the Letter shows the rest goes on. */
async function firm() {
  const sim = await startSim({ rateLimitPerSecond: 0 });
  const company = sim.admin.createCompany({ name: 'Acme Pty Ltd' });
  const owner = { kind: 'company' as const, id: String(company.id) };
  const minutes = sim.admin.createDocument({ owner, name: 'Minutes', documentDate: '2024-06-30' });
  sim.admin.addAttachment(minutes.id, { name: 'minutes.pdf', bytes: MINUTES });
  const letter = sim.admin.createDocument({ owner, name: 'Letter', documentDate: '2024-07-01' });
  const dir = tempDir();
  return {
    sim,
    dir,
    root: path.join(dir, 'documents'),
    minutes: String(minutes.id),
    letter: String(letter.id),
    env: { DOCSYNC_REFRESH_TOKEN: sim.admin.mintRefreshToken() },
  };
}

/** Every file in the folder (docsync's own `.docsync/` aside), with its text. */
function filesIn(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (name === '.docsync') continue;
      if (statSync(full).isDirectory()) walk(full);
      else files.set(path.relative(root, full), readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return files;
}

/** What the status page or its metrics answer with: nothing of it may be in the folder. */
const fromStatusListener = (text: string) => /<html|<!doctype|csrf|# HELP|docsync_/i.test(text);

async function itemsInError(config: string, env: NodeJS.ProcessEnv) {
  const status = await runCli(['status', '--json', '--config', config], { env });
  expect(status.code, status.stderr).not.toBe(2);
  return (JSON.parse(status.stdout) as { itemsInError: { documentId: string; reason: string }[] })
    .itemsInError;
}

/** The daemon on `config`, until its first sync is done. */
async function daemonRound(config: string, env: NodeJS.ProcessEnv) {
  const daemon = startDaemon(config, env);
  await daemon.started;
  await eventually(() => daemon.output().includes('first sync finished'), 30_000);
  return daemon;
}

function daemonConfig(f: { dir: string; sim: Simulator }, statusPort: number, service = {}) {
  return writeCliConfig(f.dir, f.sim, {
    settleSeconds: 0,
    status: { enabled: true, listen: `127.0.0.1:${statusPort}` },
    log: { level: 'info' },
    ...(Object.keys(service).length > 0 ? { service } : {}),
  });
}

describe("case 4: a link to the daemon's own status page", () => {
  it('is not fetched: no file, the attachment in error naming the host and the rule, the rest synced', async () => {
    const f = await firm();
    const port = await freePort();
    const config = daemonConfig(f, port);
    f.sim.admin.setLinks({ linkUrl: `http://127.0.0.1:${port}/` });

    const daemon = await daemonRound(config, f.env);

    const files = filesIn(f.root);
    expect([...files.values()].filter(fromStatusListener)).toEqual([]);
    expect([...files.keys()].some((file) => file.endsWith('minutes.pdf'))).toBe(false);
    // The rest of the firm went on: the Letter has its folder.
    expect(documentFolderOf(f.root, 'Companies', f.letter).name).toContain('Letter');
    const errors = await itemsInError(config, f.env);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.documentId).toBe(f.minutes);
    expect(errors[0]!.reason).toContain(`http://127.0.0.1:${port}`);
    expect(errors[0]!.reason).toContain('not one of service.linkHosts');
    expect(daemon.output()).toContain('download link refused');
  });

  it('in IPv4-mapped form, is refused even when listed in service.linkHosts', async () => {
    const f = await firm();
    const port = await freePort();
    const mapped = `http://[::ffff:127.0.0.1]:${port}`;
    const config = daemonConfig(f, port, { linkHosts: [f.sim.linkUrl, mapped] });
    f.sim.admin.setLinks({ linkUrl: `${mapped}/metrics` });

    await daemonRound(config, f.env);

    expect([...filesIn(f.root).values()].filter(fromStatusListener)).toEqual([]);
    const errors = await itemsInError(config, f.env);
    expect(errors.map((e) => e.documentId)).toEqual([f.minutes]);
    expect(errors[0]!.reason).toContain("docsync's own listener");
    expect(errors[0]!.reason).toContain(`port ${port} of this machine`);
  });

  it('reached by a 302 from the listed link host, is not followed', async () => {
    const f = await firm();
    const port = await freePort();
    const config = daemonConfig(f, port);
    f.sim.admin.setLinks({ redirectTo: `http://127.0.0.1:${port}/` });

    await daemonRound(config, f.env);

    expect([...filesIn(f.root).values()].filter(fromStatusListener)).toEqual([]);
    const errors = await itemsInError(config, f.env);
    expect(errors.map((e) => e.documentId)).toEqual([f.minutes]);
    expect(errors[0]!.reason).toContain(`http://127.0.0.1:${port}`);
    expect(errors[0]!.reason).toContain(`redirected from ${f.sim.linkUrl}`);
  });
});

describe('case 4: service.linkHosts', () => {
  it('unset, the plain-http link host of the simulator is refused; listed, it serves the file', async () => {
    const f = await firm();
    const unlisted = writeCliConfig(f.dir, f.sim, { service: { linkHosts: undefined } });

    const refused = await runCli(['run', '--once', '--config', unlisted], { env: f.env });

    expect(refused.code, refused.stderr).toBe(3);
    expect([...filesIn(f.root).keys()].some((file) => file.endsWith('minutes.pdf'))).toBe(false);
    const errors = await itemsInError(unlisted, f.env);
    expect(errors.map((e) => e.documentId)).toEqual([f.minutes]);
    expect(errors[0]!.reason).toContain(f.sim.linkUrl);
    expect(errors[0]!.reason).toContain('plain http; links must be https');

    const listed = writeCliConfig(f.dir, f.sim);
    const fetched = await runCli(['run', '--once', '--config', listed], { env: f.env });

    expect(fetched.code, fetched.stderr).toBe(0);
    const { folder } = documentFolderOf(f.root, 'Companies', f.minutes);
    expect(readFileSync(path.join(folder, 'minutes.pdf'), 'utf8')).toBe(MINUTES);
    expect(await itemsInError(listed, f.env)).toEqual([]);
  });

  it('unset, an https link whose host resolves to loopback is refused by its address', async () => {
    const f = await firm();
    const config = writeCliConfig(f.dir, f.sim, { service: { linkHosts: undefined } });
    f.sim.admin.setLinks({ linkUrl: 'https://localhost:9/minutes.pdf' });

    const run = await runCli(['run', '--once', '--config', config], { env: f.env });

    expect(run.code, run.stderr).toBe(3);
    const errors = await itemsInError(config, f.env);
    expect(errors.map((e) => e.documentId)).toEqual([f.minutes]);
    expect(errors[0]!.reason).toContain('https://localhost:9');
    expect(errors[0]!.reason).toMatch(/is at (127\.0\.0\.1|::1), a loopback address/);
  });
});
