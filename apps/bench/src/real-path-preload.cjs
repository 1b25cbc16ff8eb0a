// Bench only (the real-path section, real-path.ts): preloaded into the service's worker process with
// NODE_OPTIONS, so the real adapters' websites, `https://<name>.bench-site.com/`, are the bench's fake sites
// on loopback, as if they were on the internet: their names resolve to 127.0.0.1 after BENCH_DNS_MS (a
// resolver's round trip), and a request to one goes over plain HTTP to BENCH_SITES_PORT. Every other name and
// request is left alone. The service's own code is not changed: its lookup and its network guard run as in
// production (ENRICHMENT_ALLOW_PRIVATE_NETWORKS=1 lets them reach loopback).
'use strict';
const dns = require('node:dns');
const { setTimeout } = require('node:timers');
const { URL } = require('node:url');
const http = require('node:http');
const https = require('node:https');

const port = Number(process.env.BENCH_SITES_PORT);
const dnsMs = Number(process.env.BENCH_DNS_MS || 30);
const ours = (name) => typeof name === 'string' && /\.bench-site\.com\.?$/i.test(name);

const lookup = dns.promises.lookup;
dns.promises.lookup = async function benchLookup(hostname, options) {
  if (!ours(hostname)) return lookup.call(this, hostname, options);
  await new Promise((resolve) => setTimeout(resolve, dnsMs));
  const entry = { address: '127.0.0.1', family: 4 };
  return options && typeof options === 'object' && options.all ? [entry] : entry;
};

// A keep-alive HTTPS agent of the service's (one per site) cannot carry plain HTTP: its stand-in keeps alive too.
const plainAgents = new WeakMap();
const plainAgentFor = (agent) => {
  if (!(agent instanceof https.Agent)) return agent;
  let plainAgent = plainAgents.get(agent);
  if (!plainAgent) plainAgents.set(agent, (plainAgent = new http.Agent({ keepAlive: agent.keepAlive, maxSockets: agent.maxSockets })));
  return plainAgent;
};

const request = https.request;
https.request = function benchRequest(options, ...rest) {
  const host = options && typeof options === 'object' && !(options instanceof URL) ? options.hostname : null;
  if (!ours(host)) return request.call(this, options, ...rest);
  const { servername: _servername, ...plain } = options;
  return http.request({ ...plain, port, protocol: 'http:', agent: plainAgentFor(plain.agent) }, ...rest);
};
