/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// Two cores: two workers. Each test file owns its accounts, so files run in parallel safely.
const config: Config = {
  testEnvironment: 'node',
  maxWorkers: 2,
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // Prisma's generated client imports its TypeScript siblings with .js suffixes.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // The network guard first: nothing else may reach beyond loopback either.
  setupFiles: ['<rootDir>/test/network-guard.js', '<rootDir>/test/setup-env.ts'],
  testTimeout: 30000,
  slowTestThreshold: 10,
};

export default config;
