/**
 * Where a test's raw data is kept, by name: the `energy` fixture writes it there and the HTML
 * report links to it, so both name folders with these (the reporter may not import src/vitest).
 */
import { createHash } from 'node:crypto'

/** A path segment from free text: test names hold spaces, quotes, slashes and any script. */
export function safeSegment(text: string): string {
  const cleaned = text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}_.-]+/gu, '_')
    .replace(/^[._]+|_+$/g, '')
    .slice(0, 100)
  return cleaned === '' ? '_' : cleaned
}

/** The last part of a test's folder name: a short hash of its full name, so no two collide. */
export function testFolderSuffix(testName: string): string {
  return `-${createHash('sha256').update(testName).digest('hex').slice(0, 8)}`
}

/** A test's folder name: readable, plus the hash suffix. */
export function testFolderName(testName: string): string {
  return `${safeSegment(testName)}${testFolderSuffix(testName)}`
}
