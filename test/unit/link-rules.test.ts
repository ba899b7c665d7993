/**
 * Where a download link may point (remote/link-rules.ts): the range of each address as the
 * rules read it, and the verdict on a link's URL and on an address its host resolved to, by
 * default and with `service.linkHosts`.
 */
import { describe, expect, it } from 'vitest';
import {
  addressRange,
  type LinkRules,
  linkOrigins,
  refusalSentence,
  refuseAddress,
  refuseUrl,
} from '../../src/remote/link-rules.js';

const OPEN: LinkRules = { origins: null, ownPorts: new Set([8787, 8788]) };
const LISTED: LinkRules = {
  origins: linkOrigins(['http://127.0.0.1:4011', 'https://files.example.com']),
  ownPorts: new Set([8787, 8788]),
};
const nowhere = () => false;

describe('addressRange', () => {
  it.each([
    ['93.184.216.34', 'unicast'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'unicast'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['100.64.0.1', 'carrierGradeNat'],
    // IPv4 written as IPv6 is judged as the IPv4 address it reaches.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:93.184.216.34', 'unicast'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::5db8:d822', 'unicast'],
    ['not an address', 'invalid'],
  ])('%s is %s', (address, range) => {
    expect(addressRange(address)).toBe(range);
  });
});

describe('refuseUrl: the link as written', () => {
  it.each([
    ['https, a name: on to the lookup', OPEN, 'https://files.example.com/a.pdf', null],
    ['https, a public address', OPEN, 'https://93.184.216.34/a.pdf', null],
    ['plain http', OPEN, 'http://files.example.com/a.pdf', 'not-https'],
    ['file:', OPEN, 'file:///etc/passwd', 'scheme'],
    ['ftp:', OPEN, 'ftp://files.example.com/a.pdf', 'scheme'],
    ['https to loopback', OPEN, 'https://127.0.0.1:8443/', 'private-address'],
    ['https to mapped loopback', OPEN, 'https://[::ffff:127.0.0.1]:8443/', 'private-address'],
    ['https to IPv6 loopback', OPEN, 'https://[::1]/', 'private-address'],
    ['https to the metadata address', OPEN, 'https://169.254.169.254/', 'private-address'],
    ['https to a private host', OPEN, 'https://10.0.0.5/x', 'private-address'],
    ['https to a decimal loopback', OPEN, 'https://2130706433/', 'private-address'],
    ['https to the status page', OPEN, 'https://127.0.0.1:8788/', 'own-listener'],
    ['listed, http on loopback', LISTED, 'http://127.0.0.1:4011/files/x/a.pdf', null],
    ['listed, https', LISTED, 'https://files.example.com/a.pdf', null],
    ['listed with its default port', LISTED, 'https://files.example.com:443/a', null],
    ['another port of a listed host', LISTED, 'http://127.0.0.1:4012/', 'not-listed'],
    ['another scheme of a listed host', LISTED, 'https://127.0.0.1:4011/', 'not-listed'],
    ['not listed, even https and public', LISTED, 'https://93.184.216.34/', 'not-listed'],
    ['the status page, not listed', LISTED, 'http://127.0.0.1:8788/', 'not-listed'],
    ['the mapped status page', LISTED, 'http://[::ffff:127.0.0.1]:8788/', 'not-listed'],
  ])('%s', (_name, rules, link, rule) => {
    expect(refuseUrl(new URL(link), rules)?.rule ?? null).toBe(rule);
  });

  it("refuses docsync's own listener even when it is listed", () => {
    const rules = { ...LISTED, origins: linkOrigins(['http://127.0.0.1:8788']) };
    const refusal = refuseUrl(new URL('http://127.0.0.1:8788/metrics'), rules);
    expect(refusal).toMatchObject({ rule: 'own-listener', origin: 'http://127.0.0.1:8788' });
    expect(refusalSentence(refusal!)).toContain('http://127.0.0.1:8788');
  });
});

describe('refuseAddress: what the host resolved to', () => {
  const url = new URL('https://files.example.com/a.pdf');
  it.each([
    ['a public address', OPEN, '93.184.216.34', null],
    ['loopback', OPEN, '127.0.0.1', 'private-address'],
    ['a mapped private address', OPEN, '::ffff:192.168.0.1', 'private-address'],
    ['unique-local', OPEN, 'fd00::1', 'private-address'],
    ['link-local', OPEN, 'fe80::1', 'private-address'],
    ['unspecified', OPEN, '0.0.0.0', 'private-address'],
    ['listed: a private address is the firm’s choice', LISTED, '10.0.0.5', null],
  ])('%s', (_name, rules, address, rule) => {
    expect(refuseAddress(address, url, rules, nowhere)?.rule ?? null).toBe(rule);
  });

  it('refuses a public address of this machine on an own port, listed or not', () => {
    const own = new URL('https://files.example.com:8788/');
    const here = (address: string) => address === '93.184.216.7';
    expect(refuseAddress('93.184.216.7', own, OPEN, here)?.rule).toBe('own-listener');
    expect(refuseAddress('93.184.216.8', own, OPEN, here)).toBeNull();
  });
});

describe('refusalSentence', () => {
  it('names the host and the rule', () => {
    const refusal = refuseUrl(new URL('https://127.0.0.1:9000/x'), OPEN)!;
    const sentence = refusalSentence(refusal, 'https://files.example.com');
    expect(sentence).toContain('https://127.0.0.1:9000');
    expect(sentence).toContain('loopback');
    expect(sentence).toContain('redirected from https://files.example.com');
    expect(sentence).toContain('service.linkHosts');
  });
});
