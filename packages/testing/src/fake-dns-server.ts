// A small authoritative DNS server on loopback for the email verification tests (RFC 1035 answers
// built with the kept `dns2` package): each zone below is one case a mail domain's DNS can be in.
// It counts the queries it receives, so a test can prove what a cache saved.
import dns2 from 'dns2';

const { Packet } = dns2;

export type RecordSet = { mx?: Array<[number, string]>; a?: string[]; aaaa?: string[]; cname?: string; txt?: string };

/** Behaviour of a zone apart from its records. */
type Behaviour = 'answer' | 'silent' | 'servfail';

const TTL = 120;

/**
 * The zones: a normal MX; no MX but an A record (RFC 5321 §5.1 fallback); a null MX (RFC 7505);
 * a name with neither; a zone whose server never answers; one that answers SERVFAIL; a domain whose
 * MX target is a CNAME, and a domain that is itself a CNAME of one with MX; an IDN domain (müller.test
 * as its A-label). Any other name is NXDOMAIN.
 */
export const ZONES: Record<string, RecordSet & { behaviour?: Behaviour }> = {
  'mx.test': {
    mx: [
      [10, 'mail.mx.test'],
      [20, 'backup.mx.test'],
    ],
  },
  'mail.mx.test': { a: ['192.0.2.1'] },
  'a-only.test': { a: ['192.0.2.2'], aaaa: ['2001:db8::2'] },
  'null-mx.test': { mx: [[0, '.']], a: ['192.0.2.3'] },
  'no-records.test': { txt: 'v=spf1 -all' },
  'silent.test': { behaviour: 'silent' },
  'servfail.test': { behaviour: 'servfail' },
  'cname-mx.test': { mx: [[10, 'mx-alias.cname-mx.test']] },
  'mx-alias.cname-mx.test': { cname: 'mail.mx.test' },
  'alias.test': { cname: 'mx.test' },
  'xn--mller-kva.test': { mx: [[5, 'mail.mx.test']] },
  'gmail.com': { mx: [[5, 'gmail-smtp-in.l.google.com']] },
  'mailinator.com': { mx: [[10, 'mail.mailinator.com']] },
};

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it */
  server: string;
  /** a test's own names (TXT and A records it publishes while it runs), read before ZONES */
  zones: Record<string, RecordSet>;
  /** queries received, by `name TYPE` (lower-case name) */
  queries: Map<string, number>;
  queriesFor(name: string): number;
  close(): Promise<void>;
}

const TYPE_NAMES: Record<number, string> = {
  [Packet.TYPE.A]: 'A',
  [Packet.TYPE.AAAA]: 'AAAA',
  [Packet.TYPE.MX]: 'MX',
  [Packet.TYPE.CNAME]: 'CNAME',
  [Packet.TYPE.TXT]: 'TXT',
};

function zoneOf(name: string): string | undefined {
  const labels = name.split('.');
  for (let i = 0; i < labels.length; i++) {
    const candidate = labels.slice(i).join('.');
    if (ZONES[candidate]?.behaviour) return candidate;
  }
  return undefined;
}

function answersFor(name: string, type: number, zones: Record<string, RecordSet>, depth = 0): unknown[] {
  const set = zones[name] ?? ZONES[name];
  if (!set || depth > 4) return [];
  const base = { name, class: Packet.CLASS.IN, ttl: TTL };
  // A CNAME answers every type: the alias, then the target's records (RFC 1034 §3.6.2).
  if (set.cname) return [{ ...base, type: Packet.TYPE.CNAME, domain: set.cname }, ...answersFor(set.cname, type, zones, depth + 1)];
  if (type === Packet.TYPE.MX) return (set.mx ?? []).map(([priority, exchange]) => ({ ...base, type, priority, exchange }));
  if (type === Packet.TYPE.A) return (set.a ?? []).map((address) => ({ ...base, type, address }));
  if (type === Packet.TYPE.AAAA) return (set.aaaa ?? []).map((address) => ({ ...base, type, address }));
  if (type === Packet.TYPE.TXT && set.txt !== undefined) return [{ ...base, type, data: set.txt }];
  return [];
}

export interface FakeDnsOptions {
  /** every name under these suffixes (not in ZONES) has an MX: for tests whose fixtures invent domains */
  mailDomainsUnder?: string[];
  /** how long every answer takes (the bench's real-path section: a resolver's round trip); 0: at once */
  latencyMs?: number;
}

export async function startFakeDnsServer(options: FakeDnsOptions = {}): Promise<FakeDnsServer> {
  const queries = new Map<string, number>();
  const zones: Record<string, RecordSet> = {};
  const under = (name: string) => (options.mailDomainsUnder ?? []).some((suffix) => name.endsWith(`.${suffix}`));
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (!question) return;
      const name = question.name.toLowerCase();
      const key = `${name} ${TYPE_NAMES[question.type] ?? question.type}`;
      queries.set(key, (queries.get(key) ?? 0) + 1);
      const special = zoneOf(name);
      if (special && ZONES[special]!.behaviour === 'silent') return; // never answers: the resolver times out
      response.header.aa = 1;
      if (special && ZONES[special]!.behaviour === 'servfail') {
        response.header.rcode = 2;
      } else if (Object.hasOwn(zones, name)) {
        response.answers.push(...(answersFor(name, question.type, zones) as typeof response.answers));
      } else if (!Object.hasOwn(ZONES, name) && under(name)) {
        if (question.type === Packet.TYPE.MX)
          response.answers.push({
            name,
            type: Packet.TYPE.MX,
            class: Packet.CLASS.IN,
            ttl: TTL,
            priority: 10,
            exchange: `mail.${name}`,
          } as (typeof response.answers)[number]);
      } else if (!Object.hasOwn(ZONES, name)) {
        response.header.rcode = 3; // NXDOMAIN
      } else {
        response.answers.push(...(answersFor(name, question.type, zones) as typeof response.answers));
      }
      if (options.latencyMs) setTimeout(() => send(response), options.latencyMs);
      else send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port;
  if (port === undefined) throw new Error('fake DNS server: no UDP port');
  return {
    server: `127.0.0.1:${port}`,
    zones,
    queries,
    queriesFor: (name) => [...queries].filter(([k]) => k.startsWith(`${name} `)).reduce((sum, [, n]) => sum + n, 0),
    close: () => server.close(),
  };
}
