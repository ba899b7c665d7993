import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFileOf, SERVER } from '../../src/config/config-location.js';
import { defaultPaths } from '../../src/config/init-plan.js';
import { useTempDir } from '../helpers/temp-dir.js';

const UNITS = path.resolve(import.meta.dirname, '../../systemd');
const tempDir = useTempDir('docsync-units-');

type Unit = Map<string, [string, string][]>;

/** systemd's unit syntax, as far as these files use it: sections, `Key=value`, comments. */
function parseUnit(file: string): Unit {
  const unit: Unit = new Map();
  let section: [string, string][] | undefined;
  for (const raw of readFileSync(path.join(UNITS, file), 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = [];
      unit.set(header[1]!, section);
      continue;
    }
    const at = line.indexOf('=');
    if (!section || at < 1) throw new Error(`${file}: not a key or section: ${line}`);
    section.push([line.slice(0, at), line.slice(at + 1)]);
  }
  return unit;
}

function values(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

const HARDENING = {
  ProtectSystem: 'strict',
  ProtectHome: 'yes',
  PrivateTmp: 'yes',
  NoNewPrivileges: 'yes',
  PrivateDevices: 'yes',
  User: 'docsync',
};

function expectService(file: string, expected: Record<string, string>) {
  const unit = parseUnit(file);
  for (const [key, value] of Object.entries({ ...HARDENING, ...expected })) {
    expect(values(unit, 'Service', key), `${file} [Service] ${key}`).toContain(value);
  }
  return unit;
}

function checkAllUnits(): void {
  const daemon = expectService('docsync.service', {
    Type: 'exec',
    ExecStart: '/usr/local/bin/docsync run',
    Restart: 'on-failure',
    StateDirectory: 'docsync',
    Environment: 'DOCSYNC_CONFIG=/etc/docsync/docsync.json',
    EnvironmentFile: '-/etc/docsync/docsync.env',
    ReadWritePaths: '/srv/documents/compliance',
  });
  expect(values(daemon, 'Install', 'WantedBy')).toEqual(['multi-user.target']);
  expect(values(daemon, 'Service', 'DynamicUser')).toEqual([]);

  const template = expectService('docsync@.service', {
    Type: 'exec',
    Restart: 'on-failure',
    StateDirectory: 'docsync/%i',
    Environment: 'DOCSYNC_CONFIG=/etc/docsync/%i.json',
    EnvironmentFile: '-/etc/docsync/%i.env',
    ReadWritePaths: '/srv/documents/%i',
  });
  expect(values(template, 'Install', 'WantedBy')).toEqual(['multi-user.target']);

  const catchup = expectService('docsync-catchup.service', {
    Type: 'oneshot',
    ExecStart: '/usr/local/bin/docsync run --once',
    StateDirectory: 'docsync',
    SuccessExitStatus: '3',
    Environment: 'DOCSYNC_CONFIG=/etc/docsync/docsync.json',
  });
  // Skips itself beside the daemon instead of stopping it (Conflicts= would).
  expect(values(catchup, 'Service', 'ExecCondition')[0]).toContain('is-active --quiet docsync');
  expect(values(catchup, 'Unit', 'Conflicts')).toEqual([]);
  expect(values(catchup, 'Service', 'Restart')).toEqual([]);

  const timer = parseUnit('docsync-catchup.timer');
  expect(values(timer, 'Timer', 'OnCalendar')).toHaveLength(1);
  expect(values(timer, 'Timer', 'Persistent')).toEqual(['true']);
  expect(values(timer, 'Install', 'WantedBy')).toEqual(['timers.target']);
}

function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version']).error === undefined;
}

describe('systemd units', () => {
  it('carry the keys the README promises', () => {
    expect(readdirSync(UNITS).sort()).toEqual([
      'docsync-catchup.service',
      'docsync-catchup.timer',
      'docsync.service',
      'docsync@.service',
    ]);
    checkAllUnits();
  });

  it('agree with docsync init and the docs on paths and umask (issue 27 case 5)', () => {
    const services = ['docsync.service', 'docsync@.service', 'docsync-catchup.service'];
    for (const file of services) {
      expect(values(parseUnit(file), 'Service', 'UMask'), file).toEqual([SERVER.umask]);
      expect(values(parseUnit(file), 'Service', 'User'), file).toEqual([SERVER.user]);
      expect(values(parseUnit(file), 'Service', 'ExecStart')[0], file).toMatch(
        new RegExp(`^${SERVER.bin} run`),
      );
    }
    // The one firm's unit: init's paths for /etc/docsync/docsync.json.
    const daemon = parseUnit('docsync.service');
    const single = defaultPaths(SERVER.configFile, '/nowhere');
    expect(values(daemon, 'Service', 'Environment')).toContain(
      `DOCSYNC_CONFIG=${SERVER.configFile}`,
    );
    expect(values(daemon, 'Service', 'EnvironmentFile')).toEqual([
      `-${envFileOf(SERVER.configFile)}`,
    ]);
    expect(values(daemon, 'Service', 'ReadWritePaths')).toEqual([single.storeRoot]);
    expect(values(daemon, 'Unit', 'RequiresMountsFor')).toEqual([single.storeRoot]);
    const stateDir = `/var/lib/${values(daemon, 'Service', 'StateDirectory')[0]}`;
    expect(stateDir).toBe(SERVER.stateDir);
    expect(single.statePath.startsWith(`${stateDir}/`)).toBe(true);
    // A firm of the template: init's paths for /etc/docsync/firm1.json, %i = firm1.
    const template = parseUnit('docsync@.service');
    const firm = defaultPaths('/etc/docsync/firm1.json', '/nowhere');
    const of = (key: string, section = 'Service') =>
      values(template, section, key).map((v) => v.replaceAll('%i', 'firm1'));
    expect(of('Environment')).toContain('DOCSYNC_CONFIG=/etc/docsync/firm1.json');
    expect(of('EnvironmentFile')).toEqual([`-${envFileOf('/etc/docsync/firm1.json')}`]);
    expect(of('ReadWritePaths')).toEqual([firm.storeRoot]);
    expect(of('RequiresMountsFor', 'Unit')).toEqual([firm.storeRoot]);
    expect(firm.statePath.startsWith(`/var/lib/${of('StateDirectory')[0]}/`)).toBe(true);
    // Every umask the README and docs/ name is the units'.
    const root = path.resolve(import.meta.dirname, '../..');
    const texts = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)];
    const said = texts.flatMap((file) =>
      [...readFileSync(path.join(root, file), 'utf8').matchAll(/umask[ =`]*(\d{3,4})/gi)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(said.length).toBeGreaterThan(0);
    expect(said.filter((s) => !/\b0?007$/.test(s))).toEqual([]);
  });

  it('pass systemd-analyze verify where systemd is installed', () => {
    // The key checks run either way; only the verify step needs the binary.
    checkAllUnits();
    if (!hasSystemdAnalyze()) return;
    const dir = tempDir();
    for (const file of readdirSync(UNITS)) {
      // verify insists the ExecStart binary exists; where docsync is installed is the admin's
      // choice, so point it at this Node for the check.
      const text = readFileSync(path.join(UNITS, file), 'utf8');
      writeFileSync(
        path.join(dir, file),
        text.replaceAll('/usr/local/bin/docsync', process.execPath),
      );
    }
    const result = spawnSync(
      'systemd-analyze',
      [
        'verify',
        './docsync.service',
        './docsync@firm1.service',
        './docsync-catchup.service',
        './docsync-catchup.timer',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    // verify exits 0 on unknown keys and bad values too, so its warnings must be absent.
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
