// The Anthropic Messages adapter: requests, whole answers, error bodies and streams ↔ IR.
export { emitRequest, parseRequest } from './request';
export { emitResponse, parseError, parseResponse } from './response';
export { AnthropicStreamParser } from './stream-parser';
export { AnthropicStreamWriter } from './stream-writer';
