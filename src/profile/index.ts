// Public API of the profile room: what other rooms may use of it.
export type { ResponseCache } from './response-cache.js'
export { ProfileError, ProfileService } from './service.js'
