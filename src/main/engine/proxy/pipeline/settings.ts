import type { OperatorRule } from '../../resilience/health';
import type { Settings } from '../../settings/settings';
import type { PipelineDeps, ShapeDeps } from './deps';

/**
 * The settings the request path reads, as values derived once per settings change (the same
 * object until then), so a request reads a field instead of looking settings up.
 */
export function pipelineSettings(
  settings: Settings,
): Pick<
  PipelineDeps,
  | 'timeouts'
  | 'failoverBudgetMs'
  | 'emergencyFallback'
  | 'activeCombo'
  | 'errorRules'
  | 'cooldownWait'
  | 'quotaWait'
  | 'watchdog'
  | 'continuation'
> {
  return {
    timeouts: settings.derived((s) => ({
      connectMs: s.number('timeouts.connectMs'),
      firstByteMs: s.number('timeouts.firstByteMs'),
      idleMs: s.number('timeouts.idleMs'),
      totalMs: s.number('timeouts.totalMs'),
    })),
    failoverBudgetMs: settings.derived((s) => s.number('routing.failoverBudgetMs')),
    emergencyFallback: settings.derived((s) => {
      const target = s.string('routing.emergencyFallback');
      return target && s.boolean('routing.emergencyFallbackEnabled') ? target : null;
    }),
    activeCombo: settings.derived((s) => s.string('routing.activeCombo') || null),
    errorRules: settings.derived((s) => s.get('providerErrorRules') as OperatorRule[]),
    cooldownWait: settings.derived((s) => ({
      enabled: s.boolean('comboCooldownWait.enabled'),
      maxWaitMs: s.number('comboCooldownWait.maxWaitMs'),
      maxAttempts: s.number('comboCooldownWait.maxAttempts'),
      budgetMs: s.number('comboCooldownWait.budgetMs'),
    })),
    quotaWait: settings.derived((s) => ({
      maxWaitMs: s.number('quotaWait.maxWaitMs'),
      keepAliveMs: s.number('quotaWait.keepAliveMs'),
    })),
    continuation: settings.derived((s) =>
      s.boolean('streamContinuation.enabled')
        ? {
            maxContinuations: s.number('streamContinuation.maxContinuations'),
            holdToolCalls: s.boolean('streamContinuation.holdToolCalls'),
          }
        : null,
    ),
    watchdog: settings.derived((s) =>
      s.boolean('streamRecovery.throughputWatchdog')
        ? {
            warmupMs: s.number('streamRecovery.warmupMs'),
            windowMs: s.number('streamRecovery.windowMs'),
            minBytesPerSecond: s.number('streamRecovery.minBytesPerSecond'),
            minMeasurableBytes: s.number('streamRecovery.minMeasurableBytes'),
          }
        : null,
    ),
  };
}

/** Request-shape repairs' switches and the heartbeat-proof idle timeout (issue 17). */
export function shapeSettings(settings: Settings): Omit<ShapeDeps, 'repairs'> {
  return {
    settings: settings.derived((s) => ({
      parameterLearning: s.boolean('shapeRepair.parameterLearning'),
      effortClamp: s.boolean('shapeRepair.effortClamp'),
      toolLimit: s.boolean('shapeRepair.toolLimit'),
      contextEditing: s.boolean('shapeRepair.contextEditing'),
    })),
    contentIdle: settings.derived((s) => s.boolean('streamRecovery.contentIdle')),
  };
}
