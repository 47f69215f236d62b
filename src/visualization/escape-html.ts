/**
 * Escaping of text placed in HTML: element content and attribute values.
 *
 * @packageDocumentation
 */

/** Escapes text for HTML element content and attribute values (`&`, `<`, `>`, `"`, `'`). */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
