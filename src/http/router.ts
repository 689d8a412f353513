// Every router of the service is made here, strict and case-sensitive: a route answers to one
// spelling only (no trailing slash, no other letter case), so whatever a route's middleware
// counts or limits sees every request the route serves; other spellings are 404.
import { Router } from '@koa/router';
import type { AppState } from './context.ts';

export function newRouter(): Router<AppState> {
  return new Router<AppState>({ strict: true, sensitive: true });
}
