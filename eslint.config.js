// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, and lines of at
// most 120 characters, over everything but data, fixtures and build output.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import stylistic from '@stylistic/eslint-plugin'
import globals from 'globals'

/** The rooms of src/ (docs/ARCHITECTURE.md): another room's files are reached through its index.ts. */
const ROOMS = ['accounts', 'atmosphere', 'cli', 'cluster', 'config', 'contract', 'field', 'grib', 'http', 'profile',
  'samples', 'source', 'standin', 'trajectory']

/** The pattern refusing a room's files but its door (`at`: where the room is). */
function door (room, at = `src/${room}`) {
  return {
    group: [`**/${room}/*`, `**/${room}/**/*`, `!**/${room}/index.js`],
    message: `Import the ${room} room through its door, ${at}/index.ts (docs/ARCHITECTURE.md).`
  }
}

export default tseslint.config(
  {
    ignores: ['dist/', 'coverage/', '.tap/', 'node_modules/', 'data/', 'test/fixtures/', 'bench/results/', 'var/',
      // the TypeScript client's build output and the types generated at build time
      'clients/typescript/dist/', 'clients/typescript/src/openapi.ts']
  },
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
    // One door per room: an import of another room's file (not its index.ts) is refused. A room's
    // own imports ('./x.js', '../y.js' inside it) never name the room, so they pass.
    files: ['src/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ROOMS.map(door) }] }
  },
  {
    // Rooms inside rooms: the rest of src/http enters the Tawhiri room (tawhiri/) through its index.ts too.
    files: ['src/http/**'],
    ignores: ['src/http/tawhiri/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...ROOMS.map(door), door('tawhiri', 'src/http/tawhiri')] }]
    }
  },
  {
    // The web explorer runs in the browser; the TypeScript client in browsers and Node.
    files: ['web/**', 'clients/typescript/**'],
    languageOptions: { globals: { ...globals.browser } }
  },
  {
    // Tests and benchmarks read JSON answers of many shapes.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' }
  }
)
