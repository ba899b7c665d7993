/**
 * `docsync check` on the webhook receiver: is the URL the service posts to reachable, and does
 * it arrive at `webhook.listen`. When `docsync run` is not running, a stand-in listens on
 * `webhook.listen` for the moment of the check (answering as the receiver does a GET: 405), so
 * the path through a proxy can be proven before the daemon starts. The check sends a GET, which
 * the receiver never records or works on. The signature is tried here, not through the URL: a
 * message signed as the service signs, with the configured secret and client code, for the URL
 * the receiver takes the signature to cover, must pass the receiver's own check
 * (triggers/verify-signature.ts).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type Got, got } from 'got';
import type { Config } from '../config/schema.js';
import { type CheckLine, fail, ok, untried, warn } from '../domain/check-lines.js';
import { USER_AGENT } from '../remote/api-wire.js';
import { verifySignature } from '../triggers/verify-signature.js';
import { listen } from '../web/listen.js';

const TOPIC = 'webhook URL';
const NONCE_HEADER = 'x-docsync-check';
const LOOPBACK = /^(127\.|::1$|localhost$)/;

export async function checkWebhook(config: Config, client: Got = got): Promise<CheckLine[]> {
  const hook = config.webhook;
  if (!hook.enabled) {
    return [
      ok(
        TOPIC,
        'the receiver is off (webhook.enabled is false): changes in the service arrive with the polls',
      ),
    ];
  }
  const lines: CheckLine[] = [documentLinkLine(config), signatureLine(config)];
  const { host, port } = hook.listen;
  // A service on this machine (the simulator) reaches a receiver on the loopback address.
  const serviceHere = LOOPBACK.test(
    new URL(config.service.baseUrl).hostname.replace(/^\[|\]$/g, ''),
  );
  if (!hook.publicUrl && LOOPBACK.test(host) && !serviceHere) {
    lines.push(
      warn(
        'webhook listen',
        `the receiver listens on ${host} only and webhook.publicUrl is not set, so the service cannot reach it`,
        'Put a reverse proxy (TLS, a public name) in front of webhook.listen, register its URL with the service and set it as webhook.publicUrl.',
      ),
    );
  }
  const nonce = randomUUID();
  const standIn = await listenStandIn(host, port, hook.path, nonce);
  if (standIn instanceof Error) {
    lines.push(
      warn(
        TOPIC,
        `cannot listen on ${host}:${port} to try it (${standIn.message})`,
        'Run `docsync check` as the user the daemon runs as, or start `docsync run` and check again.',
      ),
    );
  } else if (standIn === 'in-use') {
    lines.push(await probe(client, urlOf(config, port), null));
  } else {
    try {
      lines.push(await probe(client, urlOf(config, standIn.port), nonce));
    } finally {
      await close(standIn.server);
    }
  }
  return lines;
}

/** The URL the service posts to: `webhook.publicUrl`, else the listener itself. */
function urlOf(config: Config, port: number): string {
  if (config.webhook.publicUrl) return config.webhook.publicUrl;
  const { host } = config.webhook.listen;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `http://${shown}:${port}${config.webhook.path}`;
}

/** Null `nonce`: the daemon (or something) holds the port, and docsync's receiver should answer. */
async function probe(client: Got, url: string, nonce: string | null): Promise<CheckLine> {
  const data = { url, via: nonce ? 'stand-in' : 'running receiver' };
  let response: { statusCode: number; headers: Record<string, unknown>; body: string };
  try {
    response = await client(url, {
      headers: { 'user-agent': USER_AGENT },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: 10_000 },
    });
  } catch (error) {
    return fail(
      TOPIC,
      `${url} cannot be reached from this machine (${(error as Error).message})`,
      'Check that the proxy forwards this URL to webhook.listen, and that DNS and the firewall let it through.',
      data,
    );
  }
  const status = response.statusCode;
  if (nonce !== null) {
    if (response.headers[NONCE_HEADER] === `${nonce} wrong-path`) {
      return warn(
        TOPIC,
        `${url} reaches webhook.listen, but at another path than webhook.path`,
        'Make the proxy keep the path, or set webhook.path to the path it forwards.',
        { ...data, status },
      );
    }
    if (response.headers[NONCE_HEADER] === nonce) {
      return ok(
        TOPIC,
        `${url} reaches webhook.listen from this machine (tried with a stand-in: docsync run is not running)`,
        { ...data, status },
      );
    }
    return warn(
      TOPIC,
      `${url} answered ${status}, but not from webhook.listen`,
      'The proxy sends this URL somewhere else: point it at webhook.listen.',
      { ...data, status },
    );
  }
  if (status === 405 && /only POST/.test(response.body)) {
    return ok(
      TOPIC,
      `${url} reaches the running receiver (a GET is answered 405, as it should be)`,
      { ...data, status },
    );
  }
  return warn(
    TOPIC,
    `${url} answered ${status}, which docsync's receiver does not answer to a GET`,
    'Something else holds webhook.listen, or the proxy sends this URL elsewhere; check both.',
    { ...data, status },
  );
}

type StandIn = { server: Server; port: number } | 'in-use' | Error;

async function listenStandIn(
  host: string,
  port: number,
  path: string,
  nonce: string,
): Promise<StandIn> {
  const server = createServer((req, res) => {
    req.resume();
    const here = new URL(req.url ?? '/', 'http://stand-in').pathname === path;
    res.writeHead(here ? 405 : 404, {
      [NONCE_HEADER]: here ? nonce : `${nonce} wrong-path`,
      allow: 'POST',
    });
    res.end();
  });
  try {
    const url = await listen(server, host, port, 'webhook.listen');
    return { server, port: Number(new URL(url).port) };
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    return cause?.code === 'EADDRINUSE' ? 'in-use' : (error as Error);
  }
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * What the service keeps as a document's link: the `resourceUrl` of docsync's answer to the
 * first webhook about it. That answer comes before docsync has the document's folder, so
 * without the stable link of the status listener it can only point into the service itself,
 * and the service keeps that link for good.
 */
export function documentLinkLine(config: Config): CheckLine {
  const topic = 'document links';
  const stable = config.status.enabled ? config.status.publicUrl : undefined;
  const template = config.webhook.resourceUrlTemplate;
  if (stable) {
    return ok(
      topic,
      `the service is given ${stable.replace(/\/+$/, '')}/documents/{documentId} for each document: a stable link that leads to its folder once docsync has it, wherever it moves`,
      { stable: true },
    );
  }
  if (!template) {
    return ok(
      topic,
      'the webhook answers carry no link (neither status.publicUrl nor webhook.resourceUrlTemplate is set): the service shows none beside a document',
      { stable: false },
    );
  }
  return warn(
    topic,
    `status.publicUrl is not set: the first answer about a new document comes before docsync has its folder, so its link is the service's own page of the entity (under ${config.service.webUrl}), and the service keeps that link, not the folder's`,
    "Set status.publicUrl to the address the firm's browsers reach the status listener at (and keep status.enabled): each answer then carries a stable link, /documents/{documentId}, that leads to the document's folder.",
    { stable: false },
  );
}

/**
 * The webhook's signature, as far as this machine can try it: a sample message signed with
 * `webhook.secret` and `webhook.clientCode` for the URL the receiver takes the signature to
 * cover (`webhook.publicUrl`, else the listener's own), checked as the receiver checks one.
 * Whether the service signs with the same secret shows only with its first message.
 */
export function signatureLine(config: Config): CheckLine {
  const topic = 'webhook signature';
  const { secret, clientCode, publicUrl, listen, path } = config.webhook;
  if (!secret || !clientCode) {
    return untried(
      topic,
      `not tried: no ${secret ? 'webhook.clientCode' : 'webhook.secret'} to sign with; webhook.allowUnsigned lets every message in, signed or not`,
      "Set webhook.clientCode and DOCSYNC_WEBHOOK_SECRET (the service's signing details), then webhook.allowUnsigned to false.",
    );
  }
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const url = publicUrl ?? `http://${host}:${listen.port}${path}`;
  const now = Date.now();
  const utcDate = new Date(now).toISOString();
  const body = Buffer.from('eventType=DocumentChange&eventSubType=check&entityId=0&documentIds=0');
  const signature = createHmac('sha256', secret)
    .update(`${utcDate}POST${url}`)
    .update(body)
    .digest('base64');
  const check = verifySignature({
    authorization: `${clientCode} ${utcDate} ${signature}`,
    clientCode,
    secret,
    url,
    rawBody: body,
    nowMs: now,
  });
  if (!check.ok) {
    return fail(
      topic,
      `a message signed with webhook.secret and client code ${JSON.stringify(clientCode)} does not pass the receiver's check (${check.reason}): no message of the service would`,
      'Set webhook.clientCode to the client code exactly as the service gives it (one word).',
      { url },
    );
  }
  return ok(
    topic,
    `a message signed as the service signs (client code ${clientCode}, webhook.secret, for ${url}) passes the receiver's check; the service's own signature shows with its first message (one that does not pass is answered 401 and logged as "webhook refused")`,
    { url },
  );
}
