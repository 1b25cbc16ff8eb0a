import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'packages/db/src/generated/**', 'coverage/**', 'test/generated-clients/*.consumer.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', require: 'readonly', __dirname: 'readonly', module: 'writable' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // `npm run build` bundles whatever production code imports: test helpers stay out of it, those in a
    // test folder and those the tests share with the bench (@leadgen/testing).
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'apps/bench/**', 'packages/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)test(-support)?/', message: 'test helpers are for tests only' },
            { regex: '^@leadgen/testing(/|$)', message: 'test helpers are for tests and the bench only' },
          ],
        },
      ],
    },
  },
  {
    // The bench and the helpers it shares with the tests: never in a test folder's path, never production.
    files: ['apps/bench/**/*.ts', 'packages/testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)test(-support)?/', message: 'share through @leadgen/testing, not by path' }] },
      ],
    },
  },
  {
    files: ['scripts/**', 'apps/admin/**', 'apps/bench/**', '**/*.js', '**/*.cjs'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  // Layout is Prettier's (`npm run format`; `npm run check` runs `prettier --check`): no lint rule argues with it.
  prettier,
);
