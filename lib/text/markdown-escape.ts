/**
 * Text the console did not write (tool and server names, titles, descriptions, error reasons from
 * MCP servers), made inert inside Markdown: HTML becomes entities, so `<img src=x onerror=…>` shows
 * as text and never renders as an element; every Markdown metacharacter gets a backslash (CommonMark
 * allows one before any ASCII punctuation, so the rendered text is unchanged); line breaks become
 * spaces, so a value cannot start a heading, a list or a new table row.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_{}[\]()#+\-.!|~"]/g, (c) => `\\${c}`)
    .replace(/[\r\n\u2028\u2029]+/g, " ");
}
