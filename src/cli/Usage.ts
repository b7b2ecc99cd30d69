/**
 * A usage error of @effect/cli's parser ("Expected one of the following cases: …", "Expected to find option:
 * '--for'", "Missing argument <NAME>", "Received unknown argument: '--bogus'", "'x' is not a integer") told as a
 * minicode sentence: which flag or argument of which command, what it got, and the valid choices; then where the
 * command's help is. Pure: the parser's text, the command line, and the command's arguments and options (`Help`).
 */
import type * as Help from "./Help.js"

export interface Items {
  readonly args: ReadonlyArray<Help.Item>
  readonly options: ReadonlyArray<Help.Item>
}

const nameOf = (item: Help.Item) => item.term.split(" ")[0] ?? item.term
/** `--for a|b|c` → [a, b, c]; `applied|absent` → [applied, absent]; none for a plain value. */
const choicesOf = (term: string): ReadonlyArray<string> | undefined => {
  const value = term.startsWith("-") ? term.split(" ").slice(1).join(" ") : term
  return value.includes("|") ? value.split("|") : undefined
}
const ordinal = (i: number) => ["first", "second", "third", "fourth"][i] ?? `${i + 1}th`
const placeholderOf = (item: Help.Item) => item.term.split(" ").slice(1).join(" ")
const list = (choices: ReadonlyArray<string>) => choices.join(", ")
const quoted = (word: string) => JSON.stringify(word)
const lowerFirst = (text: string) => (/^[A-Z](?![A-Z])/.test(text) ? text[0]?.toLowerCase() + text.slice(1) : text)

/** What `item` takes, as a clause: "one of a, b", "a whole number", "a directory", or its description. */
const takes = (item: Help.Item): string => {
  const choices = choicesOf(item.term)
  if (choices !== undefined) return `one of ${list(choices)}`
  const value = item.term.startsWith("-") ? placeholderOf(item) : item.term
  if (value === "N") return "a whole number"
  if (value === "DIR") return "a directory"
  if (value === "FILE") return "a file"
  const description = item.description.replace(/\.$/, "")
  if (description === "") return `a value (${value})`
  return item.term.startsWith("-") ? `${value}, ${lowerFirst(description)}` : lowerFirst(description)
}

/** The option named `flag` on the command line, and the value it was given (`--flag value` or `--flag=value`). */
const valueOf = (words: ReadonlyArray<string>, flag: string): string | undefined => {
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? ""
    if (word.startsWith(`${flag}=`)) return word.slice(flag.length + 1)
    if (word === flag) return words[i + 1]
  }
  return undefined
}

export const sentence = (message: string, words: ReadonlyArray<string>, page: Help.Page, items: Items): string => {
  const command = `minicode ${page.path.join(" ")}`.trim()
  const help = `\`${command} --help\` shows its arguments, options and examples`
  const told = (what: string) => `${what}\n${help}`
  const optionNamed = (flag: string) => items.options.find((o) => nameOf(o) === flag)
  const optionNames = items.options.map(nameOf)

  const cases = /^Expected one of the following cases: (.*)$/.exec(message)
  if (cases !== null) {
    const choices = (cases[1] ?? "").split(", ")
    const option = items.options.find((o) => {
      const c = choicesOf(o.term)
      const given = valueOf(words, nameOf(o))
      return c !== undefined && c.join(",") === choices.join(",") && given !== undefined && !choices.includes(given)
    })
    if (option !== undefined) return told(`${nameOf(option)} must be one of ${list(choices)}; got ${quoted(valueOf(words, nameOf(option)) ?? "")}`)
    const arg = items.args.find((a) => choicesOf(a.term)?.join(",") === choices.join(","))
    const got = words.filter((w) => !w.startsWith("-") && !page.path.includes(w) && !choices.includes(w)).at(-1)
    return told(`${arg === undefined ? "the value" : `the ${ordinal(items.args.indexOf(arg))} argument`} must be one of ${list(choices)}${got === undefined ? "" : `; got ${quoted(got)}`}`)
  }
  const missingOption = /^Expected to find option: '(.+)'$/.exec(message)
  if (missingOption !== null) {
    const flag = missingOption[1] ?? ""
    const option = optionNamed(flag)
    return told(`\`${command}\` needs ${flag}${option === undefined ? "" : `: ${takes(option)}`}${page.examples[0] === undefined ? "" : `, e.g. \`${page.examples[0]}\``}`)
  }
  const noValue = /^Expected a value following option: '(.+)'$/.exec(message)
  if (noValue !== null) {
    const flag = noValue[1] ?? ""
    const option = optionNamed(flag)
    return told(`${flag} needs a value${option === undefined ? "" : `: ${takes(option)}`}`)
  }
  const missingArg = /^Missing argument <(.+)>$/.exec(message)
  if (missingArg !== null) {
    const name = missingArg[1] ?? ""
    const arg = items.args.find((a) => a.term === name)
    return told(`\`${command}\` needs its ${name} argument${arg === undefined ? "" : `: ${takes(arg)}`}${page.examples[0] === undefined ? "" : `, e.g. \`${page.examples[0]}\``}`)
  }
  const notA = /^'(.*)' is not a (?:n )?(\w+)$/.exec(message)
  if (notA !== null) {
    const value = notA[1] ?? ""
    const kind = notA[2] === "integer" ? "a whole number" : `a ${notA[2] ?? "value"}`
    const at = words.indexOf(value)
    const before = at > 0 ? words[at - 1] : undefined
    const option = before !== undefined && before.startsWith("-") ? optionNamed(before) : items.options.find((o) => valueOf(words, nameOf(o)) === value)
    const arg = items.args.find((a) => a.term === "N" || a.description.startsWith("An integer") || /^[A-Z]+$/.test(a.term))
    const what = option !== undefined ? nameOf(option) : arg !== undefined ? arg.term : "the value"
    return told(`${what} must be ${kind}; got ${quoted(value)}`)
  }
  const unknown = /^Received unknown argument: '(.*)'$/.exec(message)
  if (unknown !== null) {
    const word = unknown[1] ?? ""
    const flag = word.includes("=") ? word.slice(0, word.indexOf("=")) : word
    const known = optionNamed(flag)
    if (known !== undefined) return told(`${flag} needs a value: ${takes(known)}`)
    if (word.startsWith("-")) {
      return told(`\`${command}\` has no option ${word}; its options are ${optionNames.length === 0 ? "none" : list(optionNames)}`)
    }
    const args = items.args.map((a) => a.term)
    const json = args.some((a) => a.includes("JSON")) ? " (a JSON argument goes in single quotes, as one word)" : ""
    return told(`\`${command}\` does not take ${quoted(word)}: ${args.length === 0 ? "it takes no arguments" : `its arguments are ${args.join(" ")}`}${json}`)
  }
  const path = /^Path '(.*)' must (not )?exist$/.exec(message)
  if (path !== null) {
    const arg = items.args.find((a) => a.term === "FILE" || a.term.includes("."))
    return told(`${quoted(path[1] ?? "")} ${path[2] === undefined ? "does not exist" : "already exists"}${arg === undefined ? "" : `: ${arg.term} must be ${path[2] === undefined ? "an existing" : "a new"} file`}`)
  }
  return told(message.endsWith(".") ? message.slice(0, -1) : message)
}
