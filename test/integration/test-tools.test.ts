/**
 * `.ci/test-tools`, which `npm test` runs first so that `npm ci && npm test` works on a fresh
 * machine: it installs Debian's chromium (and systemd-analyze) when missing. Run for real, on a
 * PATH of stand-ins for apt-get, sudo and id that record what they were asked, with the browser
 * looked for at a path of the test's (DOCSYNC_CHROMIUM): the installed browser stays installed.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const SCRIPT = path.resolve(import.meta.dirname, '../../.ci/test-tools');

interface Machine {
  /** Tools on the PATH besides `id` and `env`. */
  readonly tools: readonly ('apt-get' | 'sudo' | 'systemd-analyze')[];
  readonly uid: number;
  readonly browser: boolean;
  readonly aptFails?: boolean;
}

function run(machine: Machine) {
  const dir = tempDir();
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const log = path.join(dir, 'calls.log');
  const chromium = path.join(dir, 'usr-bin', 'chromium');
  mkdirSync(path.dirname(chromium));
  const stub = (name: string, body: string) => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> "${log}"\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  stub('id', `echo ${machine.uid}`);
  symlinkSync('/usr/bin/env', path.join(bin, 'env'));
  if (machine.browser) stub('installed-chromium', '');
  if (machine.browser) symlinkSync(path.join(bin, 'installed-chromium'), chromium);
  for (const tool of machine.tools) {
    if (tool === 'sudo') stub('sudo', 'exec "$@"');
    if (tool === 'systemd-analyze') stub('systemd-analyze', '');
    if (tool === 'apt-get')
      stub(
        'apt-get',
        machine.aptFails
          ? 'exit 100'
          : `[ "$1" = install ] && echo '#!/bin/sh' > "${chromium}" && /bin/chmod +x "${chromium}"; exit 0`,
      );
  }
  const result = spawnSync('/bin/bash', [SCRIPT], {
    env: { PATH: bin, DOCSYNC_CHROMIUM: chromium },
    encoding: 'utf8',
  });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('id'))
    : [];
  return { code: result.status, stderr: result.stderr, calls, browserThere: existsSync(chromium) };
}

const INSTALL = 'apt-get install -y -qq --no-install-recommends';

describe('npm test brings the tools its tests need', () => {
  it('does nothing, silently, when the browser and systemd-analyze are there', () => {
    const r = run({ tools: ['apt-get', 'sudo', 'systemd-analyze'], uid: 1000, browser: true });
    expect(r).toMatchObject({ code: 0, stderr: '', calls: [] });
  });

  it('installs Debian chromium through sudo when the browser is missing, saying so first', () => {
    const r = run({ tools: ['apt-get', 'sudo', 'systemd-analyze'], uid: 1000, browser: false });
    expect(r.code).toBe(0);
    expect(r.calls).toEqual([
      'sudo apt-get update -qq',
      'apt-get update -qq',
      `sudo env DEBIAN_FRONTEND=noninteractive ${INSTALL} chromium`,
      `${INSTALL} chromium`,
    ]);
    expect(r.stderr).toMatch(/^npm test: installing .*chromium.* with sudo apt-get/m);
    expect(r.stderr).toContain('npm test: installed chromium.');
    expect(r.browserThere).toBe(true);
  });

  it('as root, installs without sudo, systemd-analyze in the same step', () => {
    const r = run({ tools: ['apt-get'], uid: 0, browser: false });
    expect(r.code).toBe(0);
    expect(r.calls).toEqual(['apt-get update -qq', `${INSTALL} chromium systemd`]);
  });

  it('fails with a sentence saying what to do when it cannot install', () => {
    const noApt = run({ tools: ['sudo'], uid: 1000, browser: false });
    expect(noApt.code).toBe(1);
    expect(noApt.stderr).toMatch(
      /^npm test: the status page test needs Chromium at \S+chromium, and there is no apt-get here to install it: install Chromium .*, then run npm test again\.\n$/,
    );

    const noSudo = run({ tools: ['apt-get'], uid: 1000, browser: false });
    expect(noSudo.code).toBe(1);
    expect(noSudo.stderr).toMatch(/needs root, and sudo is not installed: install Debian's/);
    expect(noSudo.calls).toEqual([]);

    const aptFails = run({ tools: ['apt-get'], uid: 0, browser: false, aptFails: true });
    expect(aptFails.code).toBe(1);
    expect(aptFails.stderr).toMatch(/apt-get update failed \(see above\): install Debian's/);
  });

  it('goes on without systemd-analyze where apt-get is not there to install it', () => {
    const r = run({ tools: [], uid: 1000, browser: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/systemd-analyze is missing .* the units' verification is skipped/);
  });
});
