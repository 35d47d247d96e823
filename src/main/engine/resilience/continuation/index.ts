// Mid-stream continuation (issue 28): a stream cut after text reached the client is finished by
// a continuation request, and only what comes after the cut is relayed. Pure parts only: the
// seam rule, what the client already has, the continuation request, the decision to continue.
export { type ContinuationDecision, decideContinuation } from './decide';
export { MAX_OVERLAP_CHARS, MIN_OVERLAP_CHARS, seamOverlap } from './overlap';
export {
  CONTINUE_INSTRUCTION,
  type ContinuationForm,
  continuationBody,
  continuationForm,
  continuationIr,
} from './request';
export { addUsage, type Cut, Seam } from './seam';
export { SeamText } from './seam-text';
export { readSent, type SentAnswer } from './sent';
