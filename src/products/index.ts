// The four products, each in its folder: its start (schema and typed options), its runner,
// its results, its REST routes and its MCP start tool. Here they are registered with the job
// engine, and their starts are offered by product key to what serves them all alike (the MCP
// start tools, the web pages, the OpenAPI document).
import type { JobStart, Jobs } from '../domain/jobs.ts';
import type { Account, JobRow, Product } from '../domain/ports.ts';
import type { Sessions } from '../domain/sessions.ts';
import type { Uploads } from '../domain/uploads.ts';
import type { MediaLimits } from '../media/limits.ts';
import type { ProductCard } from './card.ts';
import { analyseCard } from './analyse/card.ts';
import { analyseRunner } from './analyse/runner.ts';
import { analyseStart } from './analyse/start.ts';
import { convertCard } from './convert/card.ts';
import { convertRunner } from './convert/runner.ts';
import { convertStart } from './convert/start.ts';
import { hideCard, revealCard } from './stego/card.ts';
import { hideRunner, revealRunner } from './stego/runner.ts';
import { hideStart, revealStart } from './stego/start.ts';
import { startJob } from './start.ts';

export interface ProductSettings {
  uploads: Uploads;
  limits: MediaLimits;
  cpuBudgetMs?: number;
  c2paTrustAnchors?: string;
  ocrRecycleAfter?: number;
}

/** Registers every product's runner; gives each product's typed start. */
export function registerProducts(jobs: Jobs, s: ProductSettings) {
  return {
    hide: jobs.register(hideRunner(s)),
    reveal: jobs.register(revealRunner(s)),
    analyse: jobs.register(analyseRunner(s)),
    convert: jobs.register(convertRunner(s)),
  };
}

export type Starts = ReturnType<typeof registerProducts>;

/** Each product's start body, for a service whose results live at most `expiryMaxMs`. */
export function startBodies(expiryMaxMs: number) {
  return {
    hide: hideStart.body(expiryMaxMs),
    reveal: revealStart.body(expiryMaxMs),
    analyse: analyseStart.body(expiryMaxMs),
    convert: convertStart.body(expiryMaxMs),
  };
}

export type BodyStart = (account: Account, body: unknown) => Promise<JobRow>;

/** A job from a body as a client sent it, by product key: each checked by its own product's schema. */
export function bodyStarts(deps: { sessions: Sessions; starts: Starts; expiryMaxMs: number }): Record<Product, BodyStart> {
  const { starts } = deps;
  return {
    hide: (account, body) => startJob(deps, account, hideStart, starts.hide, body),
    reveal: (account, body) => startJob(deps, account, revealStart, starts.reveal, body),
    analyse: (account, body) => startJob(deps, account, analyseStart, starts.analyse, body),
    convert: (account, body) => startJob(deps, account, convertStart, starts.convert, body),
  };
}

/** Each product's options beside upload_uid and expiry, and the words after "Unknown option: x." (the MCP start tools take them). */
export const START_OPTIONS = {
  hide: { shape: hideStart.shape, tail: hideStart.tail },
  reveal: { shape: revealStart.shape, tail: revealStart.tail },
  analyse: { shape: analyseStart.shape, tail: analyseStart.tail },
  convert: { shape: convertStart.shape, tail: convertStart.tail },
};

/** What each product says of itself, in the order the MCP tools list them. */
export const CARDS: readonly ProductCard[] = [convertCard, analyseCard, hideCard, revealCard];

export type { JobStart, ProductCard };
