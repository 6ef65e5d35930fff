// The exit codes of `aloft serve` and `aloft demo`, each with what it means: the one list the CLI
// uses, `aloft serve --help` prints and the README's table mirrors.
import type { StartupFailure } from '../startup-error.js'

type ExitName = 'ok' | 'failed' | 'usage' | StartupFailure

export const EXIT_CODES: Record<ExitName, { code: number, meaning: string }> = {
  ok: { code: 0, meaning: 'stopped by SIGTERM or SIGINT after a graceful shutdown (or --help, --version)' },
  failed: { code: 1, meaning: 'an unexpected failure (one line on stderr; file it as a bug)' },
  usage: { code: 2, meaning: 'invalid configuration or arguments: the message names the variable or argument' },
  port_in_use: { code: 3, meaning: 'PORT is in use on HOST' },
  permission_denied: { code: 4, meaning: 'no permission to listen on PORT (below 1024 without privileges)' },
  address_unavailable: { code: 5, meaning: 'HOST is not an address of this machine' },
  source_unusable: {
    code: 6, meaning: 'ALOFT_SOURCE names a mirror directory that does not exist or holds no GFS GRIB2 files'
  }
}

/** The table as `--help` prints it. */
export function exitCodesText (): string {
  return Object.values(EXIT_CODES).map(({ code, meaning }) => `  ${code}  ${meaning}`).join('\n')
}
