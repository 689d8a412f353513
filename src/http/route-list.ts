// What an app answers, read from the routers it mounted (each router's dispatch middleware
// carries the router): the OpenAPI document describes /mcp only where it is mounted, and the
// test holds the document to this list both ways.
import http from 'node:http';
import type Koa from 'koa';

export interface MountedRoute {
  /** Upper case; '*' for a route that takes every method (router.all) and answers the ones it serves. */
  method: string;
  /** In OpenAPI's form: /api/job/{uid}. */
  path: string;
}

interface RouterLike {
  stack: { path: string | RegExp; methods: string[] }[];
  /** The web pages for people (web/routes.ts): not operations of the API, so not in its document. */
  forPeople?: boolean;
}

export function mountedRoutes(app: Koa<any>): MountedRoute[] {
  const seen = new Map<string, MountedRoute>();
  for (const mw of app.middleware) {
    const router = (mw as { router?: RouterLike }).router;
    if (!router || router.forPeople) continue;
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      const path = layer.path.replace(/:(\w+)/g, '{$1}');
      const every = http.METHODS.every((m) => layer.methods.includes(m));
      // @koa/router adds HEAD to every GET: it is the GET's, not an operation of its own
      const methods = every ? ['*'] : layer.methods.filter((m) => !(m === 'HEAD' && layer.methods.includes('GET')));
      for (const method of methods) seen.set(`${method} ${path}`, { method, path });
    }
  }
  return [...seen.values()];
}
