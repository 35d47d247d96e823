// Repository for request-shape fixes learnt from providers' 400s (issue 17), one row per
// provider, model and parameter, written in batches off the request path.

import type { Db } from './db';
import { parseJson } from './json';

export interface LearnedFixRow {
  provider: string;
  model: string;
  param: string;
  /** The fix as JSON, read back through the resilience module's own `restoreFix`. */
  fix: unknown;
  /** The upstream's words that taught it (an excerpt). */
  cause: string;
  learnedAt: number;
}

export interface LearnedFixRepo {
  load(): LearnedFixRow[];
  /** One transaction: upserts, and deletions (`null`) keyed `provider\0model\0param`. */
  save(changes: Map<string, LearnedFixRow | null>): void;
}

export function createLearnedFixRepo(db: Db): LearnedFixRepo {
  const loadStmt = db.prepare<
    [],
    {
      provider: string;
      model: string;
      param: string;
      fix: string;
      cause: string;
      learned_at: number;
    }
  >('SELECT provider, model, param, fix, cause, learned_at FROM learned_fixes');
  const upsert = db.prepare(
    `INSERT INTO learned_fixes (provider, model, param, fix, cause, learned_at)
     VALUES (@provider, @model, @param, @fix, @cause, @learnedAt)
     ON CONFLICT(provider, model, param) DO UPDATE SET fix = excluded.fix, cause = excluded.cause,
       learned_at = excluded.learned_at`,
  );
  const remove = db.prepare<[string, string, string]>(
    'DELETE FROM learned_fixes WHERE provider = ? AND model = ? AND param = ?',
  );
  const save = db.transaction((changes: Map<string, LearnedFixRow | null>) => {
    for (const [key, row] of changes) {
      if (row === null) {
        const [provider = '', model = '', param = ''] = key.split('\0');
        remove.run(provider, model, param);
      } else upsert.run({ ...row, fix: JSON.stringify(row.fix) });
    }
  });
  return {
    load: () =>
      loadStmt.all().map((r) => ({
        provider: r.provider,
        model: r.model,
        param: r.param,
        fix: parseJson<unknown>(r.fix, null),
        cause: r.cause,
        learnedAt: r.learned_at,
      })),
    save,
  };
}
