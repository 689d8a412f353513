// An error from the worker side, carried across the thread boundary: the MediaEngine port's
// EngineError (domain/media-engine.ts), which the pool implements.
import { EngineError } from '../domain/media-engine.ts';

export class TaskError extends EngineError {
  override name = 'TaskError';
}
