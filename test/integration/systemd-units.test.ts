import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
