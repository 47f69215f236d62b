/**
 * `runConversation`: one conversation of a multi-turn load — its first turn sent as prepared, each later turn when
 * the answer before it has ended (after an optional delay), with the whole history before its message: the earlier
 * messages and the model's own answers, read from the responses as they end. A turn that fails ends the
 * conversation; so does the point's end.
 *
 * @packageDocumentation
 */
import type { ChatMessage, Endpoint } from '../openai-protocol.js';
import type { OpenAiClient, PreparedRequest } from './openai-client.js';
import { readExchange } from './read-exchange.js';
import { type RequestBodyOptions, requestBody } from './request-body.js';
import type { LoadClock, TurnExchange } from './send-loop.js';
import type { WorkTurn } from './workload.js';

/** How a load's conversations go on after their first turn. */
export interface ConversationPlan {
  /** The first turn of each distinct conversation (conversation `index` is `first[index % first.length]`). */
  readonly first: readonly WorkTurn[];
  /** The later turns of each distinct conversation, in the same order. */
  readonly followUps: readonly (readonly WorkTurn[])[];
  /** The endpoint called. */
  readonly endpoint: Endpoint;
  /** How the requests are asked. */
  readonly body: RequestBodyOptions;
  /** Time between an answer's end and the next turn, in ms. */
  readonly turnDelayMs: number;
}

/** Runs conversation `index`; its first turn's bytes are `firstRequest`. */
export async function runConversation(
  index: number,
  firstRequest: PreparedRequest,
  plan: ConversationPlan,
  client: Pick<OpenAiClient, 'sendPrepared' | 'prepare'>,
  at: { readonly clock: LoadClock; readonly originMs: number; readonly endMs: number },
  signal?: AbortSignal,
): Promise<TurnExchange[]> {
  const k = index % plan.first.length;
  const out: TurnExchange[] = [{ raw: await client.sendPrepared(firstRequest, signal) }];
  const history: ChatMessage[] = [];
  let asked = plan.first[k] as WorkTurn;
  for (const turn of plan.followUps[k] ?? []) {
    const last = out.at(-1) as TurnExchange;
    const read = readExchange(last.raw, plan.endpoint, plan.body.stream);
    if (read.status !== 'ok' || signal?.aborted === true) break;
    const answer = read.pieces
      .filter((p) => p.channel === 'answer')
      .map((p) => p.text)
      .join('');
    history.push({ role: 'user', content: asked.prompt }, { role: 'assistant', content: answer });
    const due = at.clock.now() + plan.turnDelayMs;
    if (due - at.originMs >= at.endMs) break;
    if (plan.turnDelayMs > 0)
      await (at.clock.until === undefined
        ? at.clock.sleep(plan.turnDelayMs, signal)
        : at.clock.until(due, signal));
    const request = client.prepare(requestBody(turn, plan.endpoint, plan.body, history));
    out.push({ raw: await client.sendPrepared(request, signal), plannedMs: due - at.originMs });
    asked = turn;
  }
  return out;
}
