// The Gemini API adapter: requests, whole answers, error bodies and streams ↔ IR.
export { emitRequest, type GeminiCall, geminiPath, parseRequest } from './request';
export { emitResponse, parseError, parseResponse } from './response';
export { GeminiStreamParser } from './stream-parser';
export { GeminiStreamWriter } from './stream-writer';
