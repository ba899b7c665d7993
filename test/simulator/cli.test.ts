import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/run-cli.js';

describe('docsync simulator command', () => {
  it('prints URLs, client, refresh token and the init command, serves the API, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'simulator', '--port', '0', '--seed', '20', '--rate-limit', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => stdout.includes('Ctrl+C') && resolve());
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const apiUrl = /API:\s+(\S+)/.exec(stdout)![1]!;
    const refreshToken = /Refresh token:\s+(\S+)/.exec(stdout)![1]!;
    const [, clientId, clientSecret] = /Client:\s+(\S+) \/ (\S+)/.exec(stdout)!;
    expect(stdout).toContain(`init --for simulator --simulator-url ${apiUrl}\n`);
    expect(/Links:\s+(http:\S+)/.test(stdout)).toBe(true);
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    const tokens = (await (
      await fetch(`${apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${refreshToken}`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}` },
      })
    ).json()) as any;
    const companies = (await (
      await fetch(`${apiUrl}/cas/companies?offset=0&limit=5`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      })
    ).json()) as any;
    expect(companies.total).toBe(1);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Simulator stopped.');
  });

  it('speaks the public pages’ reading with --profile public-docs, and refuses a profile it lacks', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'simulator', '--port', '0', '--seed', 'demo', '--profile', 'public-docs'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => stdout.includes('Ctrl+C') && resolve());
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    expect(stdout).toMatch(/Profile:\s+public-docs/);
    const apiUrl = /API:\s+(\S+)/.exec(stdout)![1]!;
    const [, clientId, clientSecret] = /Client:\s+(\S+) \/ (\S+)/.exec(stdout)!;
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    const refreshToken = /Refresh token:\s+(\S+)/.exec(stdout)![1]!;
    const tokens = (await (
      await fetch(`${apiUrl}/oauth/token?grant_type=refresh_token&refresh_token=${refreshToken}`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}` },
      })
    ).json()) as any;
    const get = (p: string) =>
      fetch(`${apiUrl}${p}`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    const trust = ((await (await get('/cas/trusts?offset=0&limit=1')).json()) as any).trusts[0];
    expect(trust).not.toHaveProperty('name');
    expect(trust.trustNameId).toEqual(expect.any(Number));
    const page = `/trusts/${trust.id}/documents?offset=0&limit=1`;
    expect((await get(page)).status).toBe(404);
    expect((await get(`/cas${page}`)).status).toBe(200);
    expect(await (await get(page)).json()).toEqual({
      error: 'not_found',
      error_description: expect.stringContaining('No route for'),
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const refused = await runCli(['simulator', '--port', '0', '--profile', 'real']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('public-docs');
  });

  it('rejects a bad seed with exit code 1', async () => {
    const { code, stderr } = await runCli(['simulator', '--port', '0', '--seed', 'lots']);
    expect(code).toBe(1);
    expect(stderr).toContain('--seed expects a whole number or "demo", got "lots"');
  });
});
