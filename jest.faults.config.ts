/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';
import base from './jest.config';

// `npm run test:faults`: the fault suite (test/faults), one file at a time, since each starts and
// kills processes of its own. FAULT_SCALE=full runs it harder than CI does.
const config: Config = {
  ...base,
  roots: ['<rootDir>/test/faults'],
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 1,
  testTimeout: 300_000,
};

export default config;
