// The OpenAI Chat Completions adapter: requests, whole answers, error bodies and streams ↔ IR.
export { emitRequest, parseRequest } from './request';
export { emitResponse, parseError, parseResponse } from './response';
export { ChatStreamParser } from './stream-parser';
export { ChatStreamWriter } from './stream-writer';
