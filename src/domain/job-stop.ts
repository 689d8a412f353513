// Why a job's run was stopped before its runner ended, as one typed reason rather than strings
// compared by hand. Each reason has its crash-safety rule (Jobs.#execute applies them):
// - 'lease_lost': another instance took the job over; this run writes nothing more to it, not
//   its end, not its assets' removal (the new holder removes what this run left at its start).
// - 'shutdown': the service is stopping; the job's assets are removed and the job goes back to
//   the queue, for this instance's next start or another instance to take.
// - 'time_limit': the job took longer than OBSCURA_JOB_TIME_LIMIT; it fails with time_limit.
export type StopReason = 'lease_lost' | 'shutdown' | 'time_limit';

/** The stop switch of one run: its signal fires once, with the first reason given. */
export class RunStop {
  readonly #ac = new AbortController();

  get signal(): AbortSignal {
    return this.#ac.signal;
  }

  stop(reason: StopReason): void {
    this.#ac.abort(reason); // a second reason is ignored: the first one decided
  }

  /** Why the run was stopped, or undefined while it was not. */
  get reason(): StopReason | undefined {
    return this.#ac.signal.aborted ? (this.#ac.signal.reason as StopReason) : undefined;
  }
}
