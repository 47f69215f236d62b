/**
 * The prompt template of `/v1/chat/completions`. dantinox does not run the Jinja chat templates some Hugging Face
 * tokenizers carry: every model gets this plain one, one line per message followed by the assistant's cue.
 *
 * @packageDocumentation
 */
import type { ChatMessage } from '../openai-protocol.js';

/** The label of each role in {@link renderChatPrompt}. */
export const CHAT_ROLE_LABELS: Readonly<Record<ChatMessage['role'], string>> = {
  system: 'System',
  developer: 'System',
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

/**
 * The prompt text of a conversation: `"<Role>: <content>\n"` per message (`System`, `User`, `Assistant`,
 * `Tool`; `developer` is written as `System`), then `"Assistant:"`, which the model continues.
 *
 * @example
 * ```ts
 * renderChatPrompt([{ role: 'user', content: 'Hi' }]); // "User: Hi\nAssistant:"
 * ```
 */
export function renderChatPrompt(messages: readonly ChatMessage[]): string {
  return `${messages.map((m) => `${CHAT_ROLE_LABELS[m.role]}: ${m.content}\n`).join('')}Assistant:`;
}
