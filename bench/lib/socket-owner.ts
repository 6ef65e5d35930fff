// Which process of a host holds the server end of a connection (Linux, from /proc): with
// several processes accepting from one socket, the kernel decides where a connection lands, and a
// test that needs each process to hold some connections looks instead of hoping.
import { readFile, readdir, readlink } from 'node:fs/promises'

/** The socket inodes whose remote end is 127.0.0.1:`clientPort` (the server's side of that connection). */
async function serverInodes (clientPort: number): Promise<Set<string>> {
  const text = await readFile('/proc/net/tcp', 'utf8')
  const remote = `0100007F:${clientPort.toString(16).toUpperCase().padStart(4, '0')}`
  const inodes = new Set<string>()
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields[2] === remote && fields[9] !== '0') inodes.add(fields[9])
  }
  return inodes
}

/** The pid among `pids` holding the server end of the connection from local port `clientPort`, if any. */
export async function ownerOf (clientPort: number, pids: readonly number[]): Promise<number | undefined> {
  const inodes = await serverInodes(clientPort)
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode !== undefined && inodes.has(inode)) return pid
    }
  }
  return undefined
}
