/**
 * YAML parsing for config files: warnings (an unresolved tag such as `!H`) are errors too, so a config is either
 * read exactly as written or refused with a message — never parsed with a Node.js warning on stderr.
 *
 * @packageDocumentation
 */
import { parseDocument } from 'yaml';

/**
 * The value of the YAML document `text`.
 *
 * @throws the parser's first error or warning (a `YAMLError` with the line and column), for the caller to wrap.
 */
export function parseYamlText(text: string): unknown {
  const doc = parseDocument(text);
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) throw problem;
  return doc.toJS();
}
