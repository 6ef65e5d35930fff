// The Redis store's Lua scripts (src/accounts/lua/*.lua), read once at start. A script's first
// line may name fragments it builds on (`-- include: now gcra`): they are prepended in that order,
// so a helper such as GCRA is written once and shared by the scripts that use it.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

export class Script {
  readonly sha: string
  constructor (readonly name: string, readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex')
  }
}

const LUA_DIR = new URL('./lua/', import.meta.url)
const INCLUDE = /^-- include: ([a-z-]+(?: [a-z-]+)*)\n/

function source (name: string): string {
  return readFileSync(new URL(`${name}.lua`, LUA_DIR), 'utf8')
}

export function loadScript (name: string): Script {
  const text = source(name)
  const includes = INCLUDE.exec(text)?.[1].split(' ') ?? []
  return new Script(name, [...includes.map(source), text].join('\n'))
}

export const SCRIPTS = {
  createKey: loadScript('create-key'),
  revokeKey: loadScript('revoke-key'),
  allowance: loadScript('allowance'),
  reserve: loadScript('reserve'),
  shareAllowance: loadScript('share-allowance'),
  shareReserve: loadScript('share-reserve'),
  takeRequest: loadScript('take-request'),
  admit: loadScript('admit')
}
