// Public API of the standin room: what other rooms may use of it.
export { startUpstream } from './server.js'
