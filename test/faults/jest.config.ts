/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';
import base from '../../jest.config';

// The fault suite (`npm run test:faults`): its files end in .faults.ts, so `npm test` never picks
// them up. One file at a time: they start real servers and load the machine on purpose.
const config: Config = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.faults.ts'],
  maxWorkers: 1,
  testTimeout: 600_000,
  slowTestThreshold: 120,
};

export default config;
