// A request's JSON body, a room inside the http room: its bytes read (read.ts: media type, the
// route's size limit), parsed (parse.ts: UTF-8, depth and members on the raw bytes, well-formed
// JSON, finite numbers), checked against the route's schema (check.ts), and large bodies read into
// reused memory (buffers.ts). The rest of src/http enters it here.
export { BodyBuffers } from './buffers.js'
export { checkBody } from './check.js'
export { parseJsonBytes } from './parse.js'
export { declaresBody, readJsonBytes, readLimited } from './read.js'
