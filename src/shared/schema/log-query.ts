import type { LogQuery } from '../contract';

/** Each filter of a request log query, with the type of its value. */
export const LOG_QUERY_FIELDS: Record<keyof LogQuery, 'string' | 'number' | 'boolean'> = {
  provider: 'string',
  connection: 'string',
  status: 'number',
  errorsOnly: 'boolean',
  beforeId: 'number',
};
