/** An error from the worker side, carried across the thread boundary. */
export class TaskError extends Error {
  override name = 'TaskError';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
