// What the test suite and the bench (apps/bench) share. Production code never imports it: the eslint
// rule on apps/*/src and packages/*/src and test/workspace-dependencies.test.ts keep it out of `npm run build`.
export * from './processes';
export * from './delivered-jobs';
export * from './fake-sites/fake-site';
export { evaluateCorpus } from './fake-sites/evaluate-corpus';
export { UNSEEN_SITES, type CorpusSite } from './fake-sites/unseen-sites';
