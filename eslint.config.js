// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, and lines of at
// most 120 characters, over everything but data, fixtures and build output.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import stylistic from '@stylistic/eslint-plugin'
import globals from 'globals'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.tap/', 'node_modules/', 'data/', 'test/fixtures/', 'bench/results/', 'var/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { '@stylistic': stylistic },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }],
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'no-new': 'error',
      'no-new-func': 'error'
    }
  },
  {
    // The web explorer runs in the browser.
    files: ['web/**'],
    languageOptions: { globals: { ...globals.browser } }
  },
  {
    // Tests and benchmarks read JSON answers of many shapes.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' }
  }
)
