// Why the service could not start, as a reason the CLI turns into one line and an exit code
// (src/cli/exit-codes.ts), never a stack trace: each is the operator's to fix, not a bug.
export type StartupFailure = 'port_in_use' | 'permission_denied' | 'address_unavailable' | 'source_unusable'

export class StartupError extends Error {
  override readonly name = 'StartupError'
  constructor (readonly reason: StartupFailure, message: string) {
    super(message)
  }
}

/** A failed listen() as the operator's problem it is, or null when it is something else. */
export function listenFailure (err: unknown, host: string, port: number): StartupError | null {
  const code = (err as NodeJS.ErrnoException | null)?.code
  const where = `${host}:${port}`
  if (code === 'EADDRINUSE') {
    return new StartupError('port_in_use', `cannot listen on ${where}: the port is in use (another aloft, or ` +
      'another program); stop it or set PORT to a free port')
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new StartupError('permission_denied', `cannot listen on ${where}: permission denied (ports below 1024 ` +
      'need privileges); set PORT to 1024 or above')
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError('address_unavailable', `cannot listen on ${where}: HOST is not an address of this ` +
      'machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0')
  }
  return null
}
