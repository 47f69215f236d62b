/**
 * Failures of the server as data: an HTTP status plus the OpenAI error body (`{"error": {"message", "type",
 * "param", "code"}}`) the client receives.
 *
 * @packageDocumentation
 */
import type { ErrorBody, ErrorDetail } from '../openai-protocol.js';

/** What the error body of an {@link ApiFailure} says. */
export interface ApiErrorDetail extends ErrorDetail {
  /** The request field at fault, or `null`. */
  readonly param: string | null;
}

/** The OpenAI error body of an {@link ApiFailure}. */
export interface ApiErrorBody extends ErrorBody {
  /** What went wrong. */
  readonly error: ApiErrorDetail;
}

/** A failed request: the HTTP status and the error body sent with it. */
export interface ApiFailure {
  /** HTTP status code. */
  readonly status: number;
  /** The OpenAI error body. */
  readonly body: ApiErrorBody;
}

/** Whether `value` is an {@link ApiFailure}. */
export function isApiFailure(value: unknown): value is ApiFailure {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

/** A failure of `status` with `message`, error `type` and `code`, and the request field at fault (`param`). */
export function apiFailure(
  status: number,
  type: string,
  code: string,
  message: string,
  param?: string,
): ApiFailure {
  return { status, body: { error: { message, type, param: param ?? null, code } } };
}

/** 400: the request is malformed or out of range; `param` names the field. */
export function badRequest(message: string, param?: string): ApiFailure {
  return apiFailure(400, 'invalid_request_error', 'invalid_request', message, param);
}

/** 404: no such route or model. */
export function notFound(message: string, param?: string, code = 'not_found'): ApiFailure {
  return apiFailure(404, 'invalid_request_error', code, message, param);
}
