/** HTML turned into readable text for `web_fetch`: scripts, styles and tags dropped, blocks on their own lines. Pure. */

const named: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", copy: "©" }

export const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return named[body.toLowerCase()] ?? whole
  })

const block = /<\/?(p|div|br|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|nav|pre|blockquote|hr|main|aside|dd|dt|dl|figure|form)\b[^>]*>/gi

export const toText = (html: string): string => {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim()
  const body = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(block, "\n")
    .replace(/<[^>]+>/g, "")
  const text = decodeEntities(body)
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .filter((line, i, all) => line !== "" || (i > 0 && all[i - 1] !== ""))
    .join("\n")
    .trim()
  return title !== undefined && title !== "" ? `# ${decodeEntities(title)}\n\n${text}` : text
}

export const isHtml = (contentType: string): boolean => /\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType)
