/**
 * A path as a line of tool output shows it: as it is, unless it holds a control character (a newline, a tab, ESC:
 * Linux allows them in names; DEL, the C1 controls, the bidi controls), then quoted as a JSON string with those
 * escaped (`Visible.json`), so that one line, or one item of a list, is one path (git quotes such paths too), and
 * the quoted form parses back to the exact name. grep, glob, list_dir, repo_map and the file tools' messages show
 * paths so.
 */
import * as Visible from "../core/Visible.js"

const control = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

/** A name that starts with a quote is quoted too: a listing's quoted line is then always a JSON string. */
export const shownPath = (path: string): string => (control.test(path) || path.startsWith('"') ? Visible.json(JSON.stringify(path)) : path)
