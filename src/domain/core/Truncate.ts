/** Output caps with a visible marker: minicode never truncates silently. */

const encoder = new TextEncoder()

export const byteLength = (text: string): number => encoder.encode(text).byteLength

/** Keeps at most `maxBytes` UTF-8 bytes (never splitting a character) and appends a marker saying what was cut. */
export const capText = (text: string, maxBytes: number): { readonly text: string; readonly truncated: boolean } => {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short texts need no encoding to know they fit.
  if (text.length * 3 <= maxBytes) return { text, truncated: false }
  const bytes = encoder.encode(text)
  if (bytes.byteLength <= maxBytes) return { text, truncated: false }
  let end = maxBytes
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--
  const kept = new TextDecoder().decode(bytes.subarray(0, end))
  return { text: `${kept}\n[truncated: ${bytes.byteLength - end} more bytes of ${bytes.byteLength}]`, truncated: true }
}
