// What the test suite and the bench (apps/bench) share. Production code never imports it: the eslint
// rule on apps/*/src and packages/*/src and test/workspace-dependencies.test.ts keep it out of `npm run build`.
export * from './processes';
export * from './delivered-jobs';
export * from './fake-sites/fake-site';
export { evaluateCorpus, normalEmail, scoreLines, type CorpusScore } from './fake-sites/evaluate-corpus';
export { WORLD_SITES, type WorldSite } from './fake-sites/world/world-sites';
export { UNSEEN_SITES, type CorpusSite } from './fake-sites/unseen-sites';
// The upstreams' doc-faithful fakes (each quotes the documentation it follows) and an authoritative DNS server on loopback.
export * from './upstream-fakes/fake-server';
export * from './upstream-fakes/google-places-fake';
export * from './upstream-fakes/pdl-fake';
export * from './upstream-fakes/storeleads-fake';
export * from './upstream-fakes/reacher-fake';
export * from './upstream-fakes/zerobounce-fake';
export * from './fake-dns-server';
export * from './smtp-sink';
