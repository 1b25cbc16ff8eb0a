// Tests talk only to this machine: every socket a test process opens must go to loopback
// (127.0.0.0/8, ::1, `localhost`) or a unix socket, and names other than `localhost` are never
// looked up in DNS. Anything else fails at once with an error naming the host, instead of reaching
// (or waiting on) the network: nock.disableNetConnect() done on node:net itself, so it
// covers http, https, fetch (undici), pg and ioredis alike.
//
// Loaded by jest's setupFiles (jest.config.ts, and test/faults/jest.config.ts through it), and by
// every process a test starts with the test's environment (worker and admin CLI processes):
// NODE_OPTIONS carries `--require` of this file. Plain CommonJS, as a child must load it before tsx.
'use strict';
/* global __filename */
const dns = require('node:dns');
const net = require('node:net');

const GUARDED = Symbol.for('leadgen.networkGuard');

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** @param {string} address */
function isLoopback(address) {
  const family = net.isIP(address);
  return family !== 0 && loopback.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** @param {string} host */
function mayResolve(host) {
  return host === 'localhost' || isLoopback(host);
}

/** @param {string} host @param {string} [address] */
function refusal(host, address) {
  const resolved = address && address !== host ? ` (${address})` : '';
  const error = new Error(
    `network guard: tests may connect only to loopback (127.0.0.0/8, ::1, localhost) or unix sockets; refused ${host}${resolved}`,
  );
  return Object.assign(error, { code: 'ERR_NETWORK_GUARD', host });
}

/** dns.lookup's contract, refusing names other than localhost before any query. */
function guardLookup(lookup) {
  return function guardedLookup(hostname, options, callback) {
    const done = typeof options === 'function' ? options : callback;
    if (!mayResolve(String(hostname))) {
      process.nextTick(done, refusal(String(hostname)));
      return {};
    }
    return lookup.call(this, hostname, options, callback);
  };
}

/** A connection's lookup (the default one, or a test's fake resolver) whose every address must be loopback. */
function checkedLookup(host, lookup) {
  return function loopbackOnly(hostname, options, callback) {
    const done = typeof options === 'function' ? options : callback;
    const report = (error, address, family) => {
      if (error) return done(error);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const outside = addresses.find((a) => !isLoopback(a));
      if (outside !== undefined) return done(refusal(host, outside));
      return done(null, address, family);
    };
    return typeof options === 'function' ? lookup.call(this, hostname, report) : lookup.call(this, hostname, options, report);
  };
}

/** Where a Socket#connect call goes: its arguments in any of node's forms, normalised ones included. */
function destination(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') return { options: first, path: first.path, host: first.host ?? 'localhost' };
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

function install() {
  const connect = net.Socket.prototype.connect;
  if (connect[GUARDED]) return;

  const guardedConnect = function (...args) {
    const { options, path, host } = destination(args);
    if (path !== undefined && path !== null) return connect.apply(this, args);
    if (net.isIP(host) ? !isLoopback(host) : !mayResolve(host) && !(options && options.lookup)) {
      process.nextTick(() => this.destroy(refusal(host)));
      return this;
    }
    if (options && !net.isIP(host) && !(options.lookup && options.lookup[GUARDED])) {
      options.lookup = Object.assign(checkedLookup(host, options.lookup ?? dns.lookup), { [GUARDED]: true });
    }
    return connect.apply(this, args);
  };
  guardedConnect[GUARDED] = true;
  net.Socket.prototype.connect = guardedConnect;

  const lookup = guardLookup(dns.lookup);
  lookup[GUARDED] = true;
  dns.lookup = lookup;
  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = function (hostname, options) {
    return mayResolve(String(hostname)) ? promisesLookup.call(this, hostname, options) : Promise.reject(refusal(String(hostname)));
  };
}

/** Children started with this process's environment load the guard too. */
function propagate(env) {
  const flag = `--require ${JSON.stringify(__filename)}`;
  if (!(env.NODE_OPTIONS ?? '').includes(flag)) env.NODE_OPTIONS = [env.NODE_OPTIONS, flag].filter(Boolean).join(' ');
}

install();
propagate(process.env);

module.exports = { GUARDED, guardLookup, isLoopback };
