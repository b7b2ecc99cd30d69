/**
 * SHA-256 of text or bytes, for content addresses (the journals' blobs, hex) and fingerprints (`mcp serve`'s replay
 * table, base64). One-shot `crypto.hash` (Node ≥ 20.12) costs half of createHash/update/digest; several run per call.
 */
import * as NodeCrypto from "node:crypto"

const oneShot = typeof NodeCrypto.hash === "function" ? NodeCrypto.hash : undefined

export const sha256 = (data: Uint8Array | string, encoding: "hex" | "base64" = "hex"): string =>
  oneShot === undefined ? NodeCrypto.createHash("sha256").update(data).digest(encoding) : oneShot("sha256", data, encoding)
