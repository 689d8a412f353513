// A session groups the files of one job (a hide, a reveal, an analysis, a conversion), and
// holds that one job, ever.
// It belongs to one account and lives a fixed time; afterwards every call on it is 410.
import { PRODUCTS, type Account, type JobRepository, type SessionRepository, type SessionRow, type SessionType } from './ports.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

export const SESSION_TYPES: readonly SessionType[] = PRODUCTS;

export interface SessionLimits {
  sessionLifeMs: number;
  directUploadMax: number;
  fileMax: number;
  sessionMaxFiles: number;
}

/** Which steps a session of each type takes, and how many files per step. */
export function stepRules(type: SessionType, maxFiles: number): Record<number, { min: number; max: number; what: string }> {
  switch (type) {
    case 'hide':
      // step 3, a decoy's files, only with a decoy_password (hide with a decoy)
      return { 1: { min: 1, max: maxFiles, what: 'secret' }, 2: { min: 1, max: 1, what: 'cover' }, 3: { min: 0, max: maxFiles, what: 'decoy' } };
    case 'reveal':
      return { 1: { min: 1, max: 1, what: 'file to reveal from' } };
    case 'analyse':
    case 'convert':
      return { 1: { min: 1, max: maxFiles, what: 'input' } };
  }
}

export class Sessions {
  readonly #repo: SessionRepository;
  readonly #jobs: Pick<JobRepository, 'activeForSession' | 'latestForSession'>;
  readonly limits: SessionLimits;

  constructor(repo: SessionRepository, jobs: Pick<JobRepository, 'activeForSession' | 'latestForSession'>, limits: SessionLimits) {
    this.#repo = repo;
    this.#jobs = jobs;
    this.limits = limits;
  }

  async create(account: Account, type: SessionType): Promise<SessionRow> {
    const now = Date.now();
    const row: SessionRow = { id: newId('up', 16), accountId: account.id, type, createdAt: now, expiresAt: now + this.limits.sessionLifeMs };
    await this.#repo.insert(row);
    return row;
  }

  /**
   * The caller's session: 404 when it does not exist, is another account's, or is not one
   * of the expected types (indistinguishable on purpose); 410 once its life is over.
   */
  async get(account: Account, id: string, types?: readonly SessionType[]): Promise<SessionRow> {
    const row = typeof id === 'string' && id.length <= 64 ? await this.#repo.byId(id) : undefined;
    if (!row || row.accountId !== account.id || (types && !types.includes(row.type))) {
      throw new AppError('session_not_found', 'No such session.');
    }
    if (row.expiresAt <= Date.now()) {
      throw new AppError('session_expired');
    }
    return row;
  }

  /**
   * A session's files are frozen while a job is queued or running on it: the job reads exactly
   * the files it validated at start, so none may be added or removed under it (409).
   */
  async assertIdle(row: SessionRow): Promise<void> {
    const job = await this.#jobs.activeForSession(row.id);
    if (job) {
      throw new AppError('session_busy', undefined, {
        job_uid: job.id,
      });
    }
  }

  /**
   * A file may join the session: no job is queued or running on it (409 session_busy), and none
   * has ended either (409 session_used): a session holds one job, ever, so a file added after it
   * could never be used.
   */
  async assertTakesFiles(row: SessionRow): Promise<void> {
    await this.assertIdle(row);
    const job = await this.#jobs.latestForSession(row.id);
    if (job) {
      throw new AppError('session_used', `This session has had its job (${job.id}, ${job.state}): a session holds one job, ever, and takes no more files; create a new session for another job.`, {
        job_uid: job.id,
        job_status: job.state,
      });
    }
  }

  /** Ends the session now (its owner deleted it): from here on every call on it answers 410. */
  async end(row: SessionRow): Promise<void> {
    await this.#repo.end(row.id, Date.now());
  }

  /** For the job engine, which already knows whose session it is. */
  byIdUnchecked(id: string): Promise<SessionRow | undefined> {
    return this.#repo.byId(id);
  }
}
