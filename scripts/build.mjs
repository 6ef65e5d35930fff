#!/usr/bin/env node
// `npm run build`: TypeScript to dist/, then the files the compiled code reads beside itself
// (the Redis Lua scripts) copied to the same place under dist/.
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')],
  { stdio: 'inherit' }
)

const ASSETS = /\.lua$/
for (const entry of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
  if (ASSETS.test(entry)) cpSync(join(root, 'src', entry), join(root, 'dist/src', entry))
}
