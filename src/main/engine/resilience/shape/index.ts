// Request shape (issue 17): what a provider's 400 about a request's shape teaches (parameter
// learning, the thinking and effort clamp, context trim, the tool limit), the body surgery that
// applies a fix, and the repairs that remember fixes per provider and model.

export { fitRatio, isPromptTooLong, statedContextLimit, trimConversation } from './context-trim';
export { readErrorText, type ShapeFix } from './fix';
export {
  causeExcerpt,
  decideShapeRepair,
  type LearntFix,
  type ShapeRepairSettings,
  ShapeRepairs,
} from './repair';
export { applyFix } from './surgery';
export { readToolLimit, toolCount } from './tool-limit';
