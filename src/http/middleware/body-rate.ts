import type { IncomingMessage } from 'node:http';
import type { Mw } from '../context.ts';

/**
 * The minimum transfer rate of every request body, for every route that reads one: each
 * window, at least rate × window bytes must arrive, or the request is answered 408
 * `body_too_slow` at once and its connection closed. Bytes are counted on the socket, so no
 * route reads differently; a window in which the body waits in our own buffer (the route is
 * the one not reading) is not held against the client. What a route does with the bytes that
 * came stays its own: a TUS PATCH keeps them (HEAD gives the offset), a direct upload or a v1
 * chunk, all or nothing, keeps none.
 */
export function minBodyRate(bytesPerSecond: number, windowMs: number): Mw {
  if (bytesPerSecond <= 0) return (_ctx, next) => next();
  const floor = Math.ceil((bytesPerSecond * windowMs) / 1000);
  return async (ctx, next) => {
    const req = ctx.req;
    if (!expectsBody(req) || req.complete) return next();
    let timer: NodeJS.Timeout | undefined;
    const tooSlow = new Promise<'slow'>((resolve) => {
      let mark = req.socket.bytesRead;
      timer = setInterval(() => {
        if (req.complete || req.destroyed) return clearInterval(timer);
        const got = req.socket.bytesRead - mark;
        mark = req.socket.bytesRead;
        if (got < floor && req.readableLength === 0) resolve('slow');
      }, windowMs);
      timer.unref();
    });
    const route = next();
    let first: 'slow' | void;
    try {
      first = await Promise.race([route, tooSlow]);
    } finally {
      clearInterval(timer);
    }
    if (first !== 'slow') return;
    // The route is still waiting on the body: it ends when the connection does, after this answer.
    route.catch(() => {});
    ctx.res.once('close', () => req.destroy());
    ctx.status = 408;
    ctx.set('Connection', 'close');
    ctx.body = {
      error: 'body_too_slow',
      message:
        `The request body arrived slower than ${bytesPerSecond} bytes a second over ${windowMs / 1000} s, the least this service waits for. ` +
        'A TUS upload keeps the bytes that arrived: ask HEAD for its Upload-Offset and PATCH the rest from there.',
    };
  };
}

/**
 * An answer given before its request's body has all arrived (a 404, a 401, a refusal, an error)
 * closes the connection: Node would otherwise read and drop the rest of the body for as long as
 * it keeps coming, at any rate, with no timeout left to end it, and a few such connections keep
 * a listener full. The answer goes out whole, then Node closes the socket.
 */
export function unreadBodyCloses(): Mw {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const req = ctx.req;
      if (expectsBody(req) && !req.complete) {
        if (ctx.res.headersSent) ctx.res.once('finish', () => req.complete || req.socket.destroy());
        else ctx.set('Connection', 'close');
      }
    }
  };
}

/** Whether the request announced a body (a length above 0, or chunks). */
export function expectsBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}
