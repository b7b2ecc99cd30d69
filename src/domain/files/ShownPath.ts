/**
 * A path as a line of tool output shows it: as it is, unless it holds a control character (a newline, a tab: Linux
 * allows them in names), then quoted as a JSON string, so that one line, or one item of a list, is one path (git
 * quotes such paths too). grep, glob and repo_map show paths so.
 */
const control = /[\x00-\x1f\x7f]/

export const shownPath = (path: string): string => (control.test(path) ? JSON.stringify(path) : path)
