/**
 * `docsync check`'s line on the link host it saw: the origin of the download link the service
 * answered with, and whether docsync would fetch from it (link-rules.ts), judged on its URL and
 * on what its host resolves to now. Nothing is fetched.
 */
import { type CheckLine, fail, ok } from '../domain/check-lines.js';
import type { LinkGuard } from './link-guard.js';
import { refusalSentence } from './link-rules.js';

export const LINK_HOST_TOPIC = 'download link host';

export async function linkHostLine(guard: LinkGuard, link: string): Promise<CheckLine> {
  const origin = new URL(link).origin;
  const listed = guard.origins;
  const data = { origin, linkHosts: listed };
  let refusal: Awaited<ReturnType<LinkGuard['judge']>>;
  try {
    refusal = await guard.judge(link);
  } catch (error) {
    return fail(
      LINK_HOST_TOPIC,
      `the service's links point at ${origin}, whose host could not be resolved: ${(error as Error).message}`,
      'Downloads fail until the host resolves; check the DNS of this machine.',
      data,
    );
  }
  if (refusal === null) {
    const why =
      listed === null
        ? 'https, and a public address'
        : `listed in service.linkHosts (${listed.join(', ')})`;
    return ok(LINK_HOST_TOPIC, `the service's links point at ${origin}: fetched (${why})`, data);
  }
  const hint =
    refusal.rule === 'own-listener'
      ? "No file is downloaded from it: it is one of docsync's own listeners. Ask the service's operator where its links should point."
      : `No file is downloaded from it. If ${origin} is where the service really keeps its files, list it in service.linkHosts (docs/configuration.md).`;
  return fail(LINK_HOST_TOPIC, refusalSentence(refusal), hint, data);
}
