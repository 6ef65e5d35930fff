// The API key lives in this tab's memory; only when asked is it kept in sessionStorage (gone when
// the browser session ends). It is never written to localStorage, a cookie or a URL.
const STORAGE_NAME = 'aloft.apiKey'
let key = ''

export function apiKey (): string {
  return key
}

/** The key kept for this session, if the person asked for that on an earlier page load. */
export function restoreKey (): string {
  try {
    key = sessionStorage.getItem(STORAGE_NAME) ?? ''
  } catch {
    key = '' // storage may be disabled; the key then lives in memory only
  }
  return key
}

export function setKey (value: string, keepForSession: boolean): void {
  key = value.trim()
  try {
    if (keepForSession && key !== '') sessionStorage.setItem(STORAGE_NAME, key)
    else sessionStorage.removeItem(STORAGE_NAME)
  } catch {
    // storage disabled: memory only, as for a key not kept
  }
}
