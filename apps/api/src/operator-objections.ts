import { OBJECTION_STATUSES, subjectDigest, type ObjectionKind, type ObjectionStatus } from '@leadgen/domain';
import type { ObjectionRecord } from '@leadgen/db';

/**
 * The operator board's objections page (decision 042): pending, confirmed and applied objections, the subject
 * never in clear. Each subject shows masked (`i***@s***.example`, `s***.example`, `+49 *** ** 42`) and by the
 * first 12 hex digits of the SHA-256 of its normal form, which `npm run admin -- objection:list` prints beside the
 * value for an operator who must act on one (a phone to confirm). Plain HTML, no script, nothing from another origin.
 */
export interface ObjectionsView {
  list(status: ObjectionStatus | undefined): Promise<ObjectionRecord[]>;
  counts(): Promise<Record<ObjectionStatus, number>>;
}

/** How many rows the page shows (newest first); `admin objection:list --limit` reads further. */
export const OBJECTIONS_PAGE_ROWS = 200;

const maskLabel = (label: string): string => `${[...label][0] ?? ''}***`;

/** A domain as its first letter and its last label: `smile-dental.example` → `s***.example`. */
function maskDomain(domain: string): string {
  const labels = domain.split('.');
  return labels.length < 2 ? maskLabel(domain) : `${maskLabel(labels[0]!)}.${labels.at(-1)}`;
}

/** What the board shows of a subject: enough to tell rows apart, never enough to read it. */
export function maskSubject(kind: ObjectionKind, value: string): string {
  if (kind === 'email') {
    const at = value.lastIndexOf('@');
    return `${maskLabel(value.slice(0, at))}@${maskDomain(value.slice(at + 1))}`;
  }
  if (kind === 'domain') return maskDomain(value);
  // a phone: its last two digits, every other digit starred
  const digits = [...value].filter((c) => /\d/.test(c)).length;
  let seen = 0;
  return [...value].map((c) => (/\d/.test(c) ? (++seen > digits - 2 ? c : '*') : c)).join('');
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const when = (date: Date | null): string => (date === null ? '' : date.toISOString().replace('T', ' ').slice(0, 19));

export async function renderObjectionsPage(view: ObjectionsView, status: ObjectionStatus | undefined, basePath: string): Promise<string> {
  const [rows, counts] = await Promise.all([view.list(status), view.counts()]);
  const filter = [
    `<a href="${basePath}/objections">all</a>`,
    ...OBJECTION_STATUSES.map((s) => `<a href="${basePath}/objections?status=${s}">${s}</a> (${counts[s]})`),
  ].join(' · ');
  const body = rows
    .map(
      (o) =>
        `<tr><td>${escape(o.id)}</td><td>${o.kind}</td><td>${escape(maskSubject(o.kind, o.value))}</td><td><code>${subjectDigest(o.value)}</code></td>` +
        `<td>${o.status}</td><td>${o.confirmedBy ?? ''}</td><td>${when(o.createdAt)}</td><td>${o.status === 'pending' ? when(o.expiresAt) : ''}</td>` +
        `<td>${when(o.confirmedAt)}</td><td>${when(o.appliedAt)}</td><td>${o.leadsErased ?? ''}</td><td>${o.accountsNoticed ?? ''}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Objections · leadgen operators</title></head>
<body>
<h1>Objections</h1>
<p><a href="${basePath}">Queues</a> · ${filter}</p>
<p>Newest first, at most ${OBJECTIONS_PAGE_ROWS}${status ? `, ${status} only` : ''}. Subjects are masked and shown by the first 12 hex digits of their SHA-256;
<code>npm run admin -- objection:list</code> shows them in full. A pending phone is confirmed with <code>objection:confirm --id</code> after calling it
(docs/data-protection.md).</p>
<table>
<thead><tr><th>id</th><th>kind</th><th>subject</th><th>sha-256</th><th>status</th><th>proof</th><th>requested (UTC)</th><th>expires</th><th>confirmed</th><th>applied</th><th>leads erased</th><th>accounts told</th></tr></thead>
<tbody>
${body || '<tr><td colspan="12">none</td></tr>'}
</tbody>
</table>
</body></html>
`;
}
