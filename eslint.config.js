// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, and lines of at
// most 120 characters, over everything but data, fixtures and build output.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import stylistic from '@stylistic/eslint-plugin'
import globals from 'globals'

/** The rooms of src/ (docs/ARCHITECTURE.md): another room's files are reached through its index.ts. */
const ROOMS = ['accounts', 'atmosphere', 'cli', 'cluster', 'config', 'contract', 'field', 'grib', 'http', 'profile',
  'samples', 'source', 'standin', 'trajectory']

/** Rooms inside rooms, by the room they are in: the rest of that room enters them through their index.ts too. */
const INNER_ROOMS = { http: ['body', 'tawhiri'], samples: ['arrow', 'json'], source: ['fetch'] }

/** The pattern refusing a room's files but its door (`at`: where the room is). */
function door (room, at = `src/${room}`) {
  return {
    group: [`**/${room}/*`, `**/${room}/**/*`, `!**/${room}/index.js`],
    message: `Import the ${room} room through its door, ${at}/index.ts (docs/ARCHITECTURE.md).`
  }
}

/** The doors of the rooms inside `room`. */
const innerDoors = (room) => INNER_ROOMS[room].map((inner) => door(inner, `src/${room}/${inner}`))

// apache-arrow is read and written in src/samples/arrow alone, which loads it on the first Arrow
// request (lazy.ts): an import of it anywhere else in src/ would load it at start-up.
const ARROW_ONLY_MESSAGE = 'Only src/samples/arrow imports apache-arrow (src/samples/README.md): ' +
  'use the samples room\'s door, whose loadArrow loads it on the first Arrow request.'
const ARROW_ONLY_PATHS = [{ name: 'apache-arrow', message: ARROW_ONLY_MESSAGE }]
const ARROW_ONLY_PATTERNS = [{ group: ['apache-arrow/*'], message: ARROW_ONLY_MESSAGE }]
const ARROW_IMPORT_EXPRESSION = 'ImportExpression[source.value=/^apache-arrow/]'

/** no-restricted-imports for src/: rooms through their doors (and the inner `doors`), apache-arrow refused. */
function imports (doors = [], arrow = false) {
  const patterns = [...ROOMS.map((room) => door(room)), ...doors]
  return ['error', arrow ? { patterns } : { paths: ARROW_ONLY_PATHS, patterns: [...patterns, ...ARROW_ONLY_PATTERNS] }]
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
    rules: {
      'no-restricted-imports': imports(),
      // import('apache-arrow') too, which no-restricted-imports does not see
      'no-restricted-syntax': ['error', { selector: ARROW_IMPORT_EXPRESSION, message: ARROW_ONLY_MESSAGE }]
    }
  },
  // Rooms inside rooms (src/http's body/ and tawhiri/, src/source's fetch/, src/samples' arrow/ and
  // json/): the rest of their room enters them through their index.ts too; their own imports never name them.
  ...Object.keys(INNER_ROOMS).map((room) => ({
    files: [`src/${room}/**`],
    rules: { 'no-restricted-imports': imports(innerDoors(room)) }
  })),
  {
    // The Arrow room: the one place apache-arrow is imported.
    files: ['src/samples/arrow/**'],
    rules: { 'no-restricted-imports': imports(innerDoors('samples'), true), 'no-restricted-syntax': 'off' }
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
