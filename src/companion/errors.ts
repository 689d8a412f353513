// Every failure a tool can meet, as the {error, message, ...} a model reads and can act on.
// The code is stable (a model or a script may branch on it); the message says what to do.

export type Details = Record<string, string | number | boolean | null | string[]>;

export class CompanionError extends Error {
  readonly code: string;
  readonly details: Details;
  constructor(code: string, message: string, details: Details = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }

  toJSON(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.details };
  }
}

/** A request the caller cancelled (the MCP client's cancellation, or the companion stopping). */
export const cancelled = () => new CompanionError('cancelled', 'The request was cancelled before it finished.');
