// Where the package's own files are (package.json, data/), from src/cli under tap and from
// dist/src/cli when built alike.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function packageRoot (): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.includes('/dist/') ? '../../../' : '../../', here))
}

/** package.json's version: the one number `aloft --version` prints. */
export function packageVersion (): string {
  return (JSON.parse(readFileSync(`${packageRoot()}package.json`, 'utf8')) as { version: string }).version
}
