// The OpenAI Responses adapter: requests, whole answers, error bodies and streams ↔ IR.
export { responseEcho } from './echo';
export { emitRequest, parseRequest } from './request';
export { emitResponse, parseError, parseResponse } from './response';
export { ResponsesStreamParser } from './stream-parser';
export { ResponsesStreamWriter } from './stream-writer';
